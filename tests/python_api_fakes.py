"""Fakes shared by the tests of the fastwindow Python package (test_python_api_*.py and
test_build_backend.py): builders and sessions without a JVM, fake per-line jars, the pyspark line.
"""

from __future__ import annotations

import zipfile

import fastwindow
from fastwindow import _jar


def _pyspark_version() -> str:
    import pyspark

    return pyspark.__version__


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


class FakeBuilder:
    """Just enough of SparkSession.Builder: ``_options`` and ``config(key, value)``."""

    def __init__(self, **options):
        self._options = dict(options)

    def config(self, key, value):
        self._options[key] = str(value)
        return self


class FakeConf:
    def __init__(self):
        self.values = {}

    def set(self, key, value):
        self.values[key] = value

    def get(self, key, default=None):
        return self.values.get(key, default)


class FakeClassicSession:
    """Looks like a classic session (has _jsparkSession/_jvm) but no JVM is behind it."""

    def __init__(self, version):
        self._jsparkSession = object()
        self._jvm = object()
        self.version = version
        self.conf = FakeConf()


class FakeConnectSession:
    """Like pyspark.sql.connect.session.SparkSession: JVM attributes raise AttributeError."""

    version = "4.3.0"

    def __getattr__(self, name):
        raise AttributeError(f"[JVM_ATTRIBUTE_NOT_SUPPORTED] {name} is not supported in Connect")


def _fake_jars(monkeypatch, tmp_path, lines, scala="2.13"):
    jars = {}
    for line in lines:
        jar = tmp_path / f"fastwindow-spark{line}_{scala}-{fastwindow.__version__}.jar"
        with zipfile.ZipFile(jar, "w") as zf:
            zf.writestr("fastwindow-build.properties", f"spark.version={line}.0\n")
        jars[line] = jar
    monkeypatch.setattr(_jar, "JARS_DIR", tmp_path)
    return jars
