"""The version of fastwindow: the single source (the sbt build and the wheel read it)."""

__version__ = "0.1.0"
