"""What every part of fastwindow's build backend shares: the compile recipe, the paths of the
checkout, fastwindow's version, the build error and the log line."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

#: Bump when the way the jar is compiled or laid out changes, so cached jars are rebuilt.
RECIPE = "fastwindow-jar-recipe-1 scalac:-release:17,-deprecation,-feature javac:--release,17"
JAVA_RELEASE = "17"
PROPERTIES_NAME = "fastwindow-build.properties"

ROOT = Path(__file__).resolve().parents[2]
VERSION_FILE = ROOT / "python" / "fastwindow" / "_version.py"
JARS_DIR = ROOT / "python" / "fastwindow" / "jars"
SCALA_DIR = ROOT / "scala-src" / "main" / "scala"
JAVA_DIR = ROOT / "scala-src" / "main" / "java"
RESOURCES_DIR = ROOT / "scala-src" / "main" / "resources"


def user_cache() -> Path:
    """fastwindow's cache folder: FASTWINDOW_CACHE, else ``$XDG_CACHE_HOME/fastwindow`` or
    ``~/.cache/fastwindow``."""
    return Path(os.environ.get("FASTWINDOW_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "fastwindow"))


class JarBuildError(RuntimeError):
    """The fastwindow jar could not be built; the message says why and what to do."""


def _log(msg: str) -> None:
    print(f"fastwindow: {msg}", file=sys.stderr, flush=True)


def read_version(version_file: Path = VERSION_FILE) -> str:
    """fastwindow's version, from the single line ``__version__ = "x.y.z"`` in ``_version.py``."""
    text = version_file.read_text(encoding="utf-8")
    m = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", text, re.MULTILINE)
    if not m:
        raise JarBuildError(f"no __version__ = \"...\" line in {version_file}")
    return m.group(1)
