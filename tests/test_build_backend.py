"""Tests of the in-tree build backend (python/_build_backend): it compiles a scratch tree, not
the project's sources, with the installed Spark's scalac (and Maven Central's API jars for another
Spark line), in a subprocess.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from fastwindow import _jar
from python_api_fakes import _minor, _pyspark_version

REPO = Path(__file__).resolve().parents[1]
BACKEND = REPO / "python" / "_build_backend" / "fastwindow_backend.py"


# --------------------------------------------------------------------------------------------
# build backend (compiles a scratch tree, not the project's sources)
# --------------------------------------------------------------------------------------------


def _scratch_tree(tmp_path: Path, scala: str, maven_lines=()) -> Path:
    root = tmp_path / "checkout"
    (root / "python" / "_build_backend").mkdir(parents=True)
    (root / "python" / "fastwindow").mkdir(parents=True)
    for module in ("fastwindow_backend.py", "backend_common.py", "installed_spark.py",
                   "jar_sources.py", "jar_compile.py", "spark_lines.py"):
        (root / "python" / "_build_backend" / module).write_bytes(
            (BACKEND.parent / module).read_bytes())
    (root / "python" / "fastwindow" / "_version.py").write_text('__version__ = "9.8.7"\n')
    src = root / "scala-src" / "main" / "scala" / "demo"
    src.mkdir(parents=True)
    (src / "Hello.scala").write_text(scala)
    # One shim folder per line, each defining the same object differently.
    lines = [f"{_minor(_pyspark_version())}\t2.13\tinstalled-shim\t-"] + [
        f"{line}\t2.13\t{line}-shim\t{maven}" for line, maven in maven_lines]
    (root / "scala-src" / "shims").mkdir(parents=True)
    (root / "scala-src" / "shims" / "spark-lines.tsv").write_text(
        "# line scala shims maven\n" + "\n".join(lines) + "\n")
    for line in ["installed"] + [line for line, _ in maven_lines]:
        shim = root / "scala-src" / "shims" / f"{line}-shim" / "scala" / "demo"
        shim.mkdir(parents=True)
        (shim / "Line.scala").write_text(f'package demo\nobject Line {{ def name = "{line}" }}\n')
    res = root / "scala-src" / "main" / "resources" / "META-INF"
    res.mkdir(parents=True)
    (res / "note.txt").write_text("resource\n")
    return root


def _run_backend(root: Path, *args: str) -> subprocess.CompletedProcess:
    # Compiled jars are kept per test (beside the scratch tree), not in the machine's cache.
    env = dict(os.environ, FASTWINDOW_JAR_CACHE=str(root.parent / "compiled-jars"))
    return subprocess.run(
        [sys.executable, str(root / "python" / "_build_backend" / "fastwindow_backend.py"), *args],
        capture_output=True, text=True, timeout=600, cwd=root, env=env)


@pytest.mark.skipif(not BACKEND.is_file(), reason="needs a source checkout")
def test_backend_compiles_packages_and_caches(tmp_path):
    root = _scratch_tree(tmp_path, "package demo\nobject Hello { def hi: String = \"hi\" }\n")
    first = _run_backend(root)
    assert first.returncode == 0, first.stderr
    assert "compiling 2 Scala file(s) with Spark" in first.stderr
    spark = _pyspark_version()
    jar = root / "python" / "fastwindow" / "jars" / f"fastwindow-spark{_minor(spark)}_2.13-9.8.7.jar"
    assert jar.is_file()
    with zipfile.ZipFile(jar) as zf:
        names = set(zf.namelist())
        props = zf.read("fastwindow-build.properties").decode().splitlines()
    assert {"demo/Hello.class", "demo/Hello$.class", "demo/Line$.class", "META-INF/note.txt",
            "META-INF/MANIFEST.MF"} <= names
    assert "version=9.8.7" in props and f"spark.version={spark}" in props
    assert "scala.binary.version=2.13" in props
    second = _run_backend(root)
    assert second.returncode == 0 and "up to date" in second.stderr
    # Another checkout of the same sources (here: the jar gone) takes the jar compiled before.
    built = jar.read_bytes()
    jar.unlink()
    third = _run_backend(root)
    assert third.returncode == 0 and "compiled for Spark" in third.stderr, third.stderr
    assert "compiling" not in third.stderr and jar.read_bytes() == built


@pytest.mark.skipif(not BACKEND.is_file(), reason="needs a source checkout")
def test_backend_surfaces_scalac_errors(tmp_path):
    root = _scratch_tree(tmp_path, "package demo\nobject Hello { def hi: Int = \"not an int\" }\n")
    proc = _run_backend(root)
    assert proc.returncode != 0
    assert "Hello.scala:2: error: type mismatch" in proc.stderr
    assert re.search(r"scalac \(Spark [\d.]+\) failed", proc.stderr)
    assert not list((root / "python" / "fastwindow").glob("jars/*.jar"))


@pytest.mark.skipif(not BACKEND.is_file(), reason="needs a source checkout")
def test_backend_builds_other_lines_against_maven_central(tmp_path):
    # A line other than the installed one is compiled against its Spark's API jars from Maven
    # Central (cached in ~/.cache/fastwindow), with its own shim folder.
    line, maven = ("4.2", "4.2.0/2.13.18") if _minor(_pyspark_version()) == "4.0" else \
        ("4.0", "4.0.4/2.13.16")
    root = _scratch_tree(tmp_path, "package demo\nobject Hello { def hi = Line.name }\n",
                         maven_lines=[(line, maven)])
    proc = _run_backend(root, "--spark-lines", "all")
    assert proc.returncode == 0, proc.stderr
    jars = root / "python" / "fastwindow" / "jars"
    other = jars / f"fastwindow-spark{line}_2.13-9.8.7.jar"
    props = _jar.build_info(str(other))
    assert (props["spark.version"], props["scala.version"]) == tuple(maven.split("/"))
    assert props["spark.line"] == line
    installed = jars / f"fastwindow-spark{_minor(_pyspark_version())}_2.13-9.8.7.jar"
    assert installed.is_file()
    # Editable installs build only the installed line, and keep other lines' jars only while
    # they match the sources.
    (root / "scala-src" / "main" / "scala" / "demo" / "Hello.scala").write_text(
        "package demo\nobject Hello { def hi = Line.name + \"!\" }\n")
    proc = _run_backend(root)
    assert proc.returncode == 0, proc.stderr
    assert f"removing stale fastwindow-spark{line}_2.13-9.8.7.jar" in proc.stderr
    assert installed.is_file() and not other.exists()


def test_backend_rejects_unknown_spark_lines(tmp_path):
    root = _scratch_tree(tmp_path, "package demo\nobject Hello\n")
    proc = _run_backend(root, "--spark-lines", "3.4")
    assert proc.returncode == 1
    assert "no Spark line ['3.4']" in proc.stderr


def test_a_wheel_ships_only_the_jars_its_build_made(tmp_path, monkeypatch):
    """A jar an earlier build left in the package (a line this build leaves out) is not packed."""
    monkeypatch.syspath_prepend(str(BACKEND.parent))
    import fastwindow_backend

    jars = tmp_path / "jars"
    jars.mkdir()
    made, left = (jars / f"fastwindow-spark{line}-0.1.0.jar" for line in ("4.3_2.13", "3.5_2.12"))
    made.write_bytes(b"made now")
    left.write_bytes(b"left by an earlier build")
    monkeypatch.setattr(fastwindow_backend, "JARS_DIR", jars)
    monkeypatch.setattr(fastwindow_backend, "build_jars", lambda which, force: [made])
    fastwindow_backend._prepare({"spark-lines": "4.3"}, default_lines="all", only_built=True)
    assert made.exists() and not left.exists()
