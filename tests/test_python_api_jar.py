"""Unit tests of the fastwindow Python package: its version and bundled jar, and which jar
``jar_path()`` picks per Spark line and Scala version (fake jars, no JVM).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import fastwindow
from fastwindow import FastWindowError
from fastwindow import _jar, cli
from python_api_fakes import _fake_jars, _minor, _pyspark_version

# Another test module may already run a SparkContext in this process; configure() then warns
# that static confs will not apply. That is expected here (no session is started from them).
pytestmark = pytest.mark.filterwarnings(
    r"ignore:fastwindow\.configure\(\). a SparkContext is already running:RuntimeWarning")

REPO = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------------------------
# version and jar
# --------------------------------------------------------------------------------------------


def test_version_is_single_sourced():
    text = (REPO / "python" / "fastwindow" / "_version.py").read_text()
    m = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", text, re.MULTILINE)
    assert m, "the sbt build parses this line"
    assert fastwindow.__version__ == m.group(1)
    assert fastwindow.build_info()["version"] == fastwindow.__version__


def test_jar_path_is_bundled_jar():
    path = fastwindow.jar_path()
    assert os.path.isabs(path) and os.path.isfile(path)
    spark = _pyspark_version()
    assert os.path.basename(path) == (
        f"fastwindow-spark{_minor(spark)}_2.13-{fastwindow.__version__}.jar")
    assert Path(path).parent == Path(fastwindow.__file__).resolve().parent / "jars"
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        props = zf.read("fastwindow-build.properties").decode()
    assert "fastwindow/FastWindow.class" in names
    assert "fastwindow/FastWindowExtensions.class" in names
    assert f"version={fastwindow.__version__}" in props.splitlines()
    # Built against this Spark line (the installed release, or that line's Maven release).
    assert f"spark.line={_minor(spark)}" in props.splitlines()
    assert "scala.binary.version=2.13" in props.splitlines()
    assert re.search(r"^source\.hash=[0-9a-f]{64}$", props, re.MULTILINE)
    assert _minor(fastwindow.built_for_spark()) == _minor(spark)


def test_jar_path_missing_says_how_to_build(monkeypatch, tmp_path):
    monkeypatch.setattr(_jar, "JARS_DIR", tmp_path / "jars")
    with pytest.raises(FastWindowError, match=r"pip install \."):
        fastwindow.jar_path()


def test_package_is_typed_and_import_does_not_start_spark():
    assert (Path(fastwindow.__file__).parent / "py.typed").is_file()
    code = "import sys, fastwindow; print('pyspark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------------------------
# one jar per Spark line: which one is picked
# --------------------------------------------------------------------------------------------


def test_jar_path_picks_the_installed_pyspark_line(monkeypatch, tmp_path):
    jars = _fake_jars(monkeypatch, tmp_path, ["4.0", "4.2", "4.3"])
    monkeypatch.setattr(_jar, "_installed_pyspark", lambda: ("4.2.1", "2.13"))
    assert fastwindow.jar_path() == str(jars["4.2"])
    assert fastwindow.jar_path(spark="4.0.4") == str(jars["4.0"])
    assert fastwindow.jar_path(spark="4.3") == str(jars["4.3"])


def test_jar_path_without_pyspark_needs_the_line(monkeypatch, tmp_path, capsys):
    jars = _fake_jars(monkeypatch, tmp_path, ["4.0", "4.3"])
    monkeypatch.setattr(_jar, "_installed_pyspark", lambda: None)
    with pytest.raises(FastWindowError, match=r"--spark 4\.2"):
        fastwindow.jar_path()
    assert cli.main(["jar", "--spark", "4.0"]) == 0
    assert capsys.readouterr().out.strip() == str(jars["4.0"])


def test_jar_path_names_the_supported_lines(monkeypatch, tmp_path, capsys):
    _fake_jars(monkeypatch, tmp_path, ["4.0", "4.1"])
    monkeypatch.setattr(_jar, "_installed_pyspark", lambda: ("4.1.0", "2.13"))
    for args, wanted in ((["--spark", "3.4"], "Spark 3.4"), (["--spark", "5.0.0"], "Spark 5.0.0"),
                         (["--spark", "4.1", "--scala", "2.12"], "Spark 4.1 (Scala 2.12)")):
        assert cli.main(["jar", *args]) == 1
        err = capsys.readouterr().err
        assert f"has no jar for {wanted}" in err
        assert "carries jars for Spark 4.0, 4.1 (Scala 2.13)" in err


def test_jar_path_picks_the_scala_of_the_local_pyspark(monkeypatch, tmp_path):
    jars = {scala: _fake_jars(monkeypatch, tmp_path, ["3.5"], scala=scala)["3.5"]
            for scala in ("2.12", "2.13")}
    monkeypatch.setattr(_jar, "_installed_pyspark", lambda: None)
    monkeypatch.setattr(_jar, "_pyspark_scala", lambda: "2.13")
    assert fastwindow.jar_path(spark="3.5.1") == str(jars["2.13"])
    assert fastwindow.jar_path(spark="3.5", scala="2.12") == str(jars["2.12"])
    monkeypatch.setattr(_jar, "_pyspark_scala", lambda: None)
    with pytest.raises(FastWindowError, match=r"Scala 2\.12 and 2\.13: say which"):
        fastwindow.jar_path(spark="3.5")


def test_the_scala_of_spark_home_wins_over_pysparks_own_jars(monkeypatch, tmp_path):
    # pyspark launches $SPARK_HOME's Spark when it is set: e.g. PyPI's pyspark 3.5 (Scala 2.12
    # jars) driving a Spark 3.5 built for Scala 2.13 needs the 2.13 jar.
    (tmp_path / "jars").mkdir()
    (tmp_path / "jars" / "spark-core_2.13-3.5.9.jar").write_bytes(b"")
    monkeypatch.setenv("SPARK_HOME", str(tmp_path))
    _jar._pyspark_scala.cache_clear()
    try:
        assert _jar._pyspark_scala() == "2.13"
    finally:
        _jar._pyspark_scala.cache_clear()
