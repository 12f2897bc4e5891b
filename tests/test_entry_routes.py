"""End-to-end tests of the ways to turn fastwindow on, each in a fresh Python process.

(a) ``fastwindow.enable(spark)`` on a live session that was built WITHOUT the jar;
(b) ``spark-submit --jars <jar> --conf spark.sql.extensions=fastwindow.FastWindowExtensions``
    (on the installed line the deployments' local-cluster test runs this route, with executors
    of their own: .ci/parts.py leaves it to that test there; the other lines run it here);
(c) ``spark-submit --packages`` from a Maven repository of the release's jar.

``fastwindow.configure(SparkSession.builder)`` before the session exists is how every test
session of the suite starts, on every line (tests/conftest.py), so it has no test of its own.

Every route runs tests/apps/window_app.py: a small window query (row_number and running sums)
with spark.fastwindow.enabled on and off. The test checks that the plan with it on has a
FastWindow operator, the plan with it off has none, and both results are equal.

One JVM per route (one SparkContext per process), local[1], tiny data, no UI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fastwindow

APP = Path(__file__).resolve().parent / "apps" / "window_app.py"
FIRST_TIER = "-XX:TieredStopAtLevel=1"  # as the app sets for the routes it starts the JVM of
TIMEOUT = 600


def _env() -> dict:
    env = dict(os.environ)
    env["PYSPARK_PYTHON"] = sys.executable
    env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    # The session must come from the command/route under test, not from the environment.
    for key in ("PYSPARK_SUBMIT_ARGS", "SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED",
                "SPARK_LOCAL_REMOTE", "MASTER"):
        env.pop(key, None)
    return env


def _run(cmd: list, tmp_path: Path) -> dict:
    proc = subprocess.run(
        cmd, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=TIMEOUT)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("FWRESULT ")]
    if proc.returncode != 0 or not lines:
        pytest.fail(
            f"{' '.join(map(str, cmd))} exited {proc.returncode}\n--- stdout ---\n"
            f"{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-8000:]}")
    return json.loads(lines[-1][len("FWRESULT "):])


def _check_window_results(out: dict) -> None:
    assert out["rows"] == 3000
    assert "FastWindow" not in out["plan_off"], (
        "with spark.fastwindow.enabled=false Spark's Window must run:\n" + out["plan_off"])
    assert out["equal"], f"results differ from Spark's: {out.get('first_differences')}"
    assert "FastWindow" in out["plan_on"], (
        "expected a FastWindow operator in the physical plan:\n" + out["plan_on"])


@pytest.fixture(scope="module")
def jar() -> str:
    return fastwindow.jar_path()


def test_route_enable_live_session_without_jar(tmp_path, jar):
    out = _run([sys.executable, str(APP), "enable"], tmp_path)
    assert out["loadable_before"] is False, "the session was supposed to start without the jar"
    assert out["is_enabled_before"] is False
    assert out["is_enabled"] is True
    _check_window_results(out)


def test_route_spark_submit_jars(tmp_path, jar):
    import pyspark

    spark_submit = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit")
    assert os.path.exists(spark_submit), spark_submit
    cmd = [
        spark_submit,
        "--master", "local[1]",
        "--conf", "spark.ui.enabled=false",
        "--driver-java-options", FIRST_TIER,
        "--jars", jar,
        "--conf", f"spark.sql.extensions={fastwindow.EXTENSIONS_CLASS}",
        str(APP), "submit",
    ]
    out = _run(cmd, tmp_path)
    _check_window_results(out)


def test_route_spark_submit_packages(tmp_path, jar):
    """The release's Maven route: the jar, with its POM, in a Maven repository
    (``python -m fastwindow maven-repo``), resolved by ``spark-submit --packages`` from it (its
    own Ivy cache: nothing from an earlier resolution)."""
    import pyspark
    from fastwindow._jar import built_for_spark
    from fastwindow._maven import write_repository

    repo = tmp_path / "maven"
    (coordinate,) = write_repository([Path(jar)], repo)
    line = ".".join(built_for_spark(jar).split(".")[:2])
    assert coordinate.startswith(f"io.github.fastwindow:fastwindow-spark{line}_"), coordinate
    spark_submit = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit")
    cmd = [
        spark_submit,
        "--master", "local[1]",
        "--conf", "spark.ui.enabled=false",
        "--driver-java-options", FIRST_TIER,
        "--conf", f"spark.jars.ivy={tmp_path / 'ivy'}",
        "--repositories", repo.as_uri(),
        "--packages", coordinate,
        "--conf", f"spark.sql.extensions={fastwindow.EXTENSIONS_CLASS}",
        str(APP), "submit",
    ]
    out = _run(cmd, tmp_path)
    _check_window_results(out)
