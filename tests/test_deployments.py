"""fastwindow where users deploy it, not only in local mode.

(1) A ``local-cluster[2,1,1024]`` master: a standalone cluster of two executor JVMs on this
    machine, the application started by ``spark-submit --jars <jar> --conf
    spark.sql.extensions=...``: the jar must reach the executors (their own class loaders), and the
    driver plans FastWindow.
(2) A Spark Connect server started with the jar and the extension; a Connect client (no JVM of its
    own) runs the queries, reads the plan with ``df.explain()`` and compares with chispa.
(3) The same cluster with failures injected into a window spread over tasks: a task of its
    stage and a map task of its range shuffle fail once, and an executor is killed in its stage
    (tests/apps/failure_app.py).

(1) and (2) run tests/apps/deployment_app.py: every window family over whole/running/moving/RANGE frames
plus an overflowing sum (ANSI off, and on for the overflow), each with spark.fastwindow.enabled
true and false.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fastwindow

APP = Path(__file__).resolve().parent / "apps" / "deployment_app.py"
TIMEOUT = 900


def _spark_home() -> str:
    import pyspark

    return os.path.dirname(os.path.abspath(pyspark.__file__))


def _env() -> dict:
    """pyspark's own Spark as SPARK_HOME (executors and the server start from it), this Python
    for every Python process, and no session settings inherited from the environment."""
    env = dict(os.environ)
    env["SPARK_HOME"] = _spark_home()
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    for key in ("PYSPARK_SUBMIT_ARGS", "SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED",
                "SPARK_LOCAL_REMOTE", "MASTER"):
        env.pop(key, None)
    return env


def _spark_submit() -> str:
    return os.path.join(_spark_home(), "bin", "spark-submit")


#: The JIT's first tier only, in every JVM a deployment starts (as the test session's): each
#: lives a minute or two, too short for the optimizing tier's compiles to pay.
FIRST_TIER = "-XX:TieredStopAtLevel=1"


def _run_app(cmd: list, tmp_path: Path) -> dict:
    proc = subprocess.run(cmd, cwd=tmp_path, env=_env(), capture_output=True, text=True,
                          timeout=TIMEOUT)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("FWRESULT ")]
    if proc.returncode != 0 or not lines:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {proc.returncode}\n--- stdout ---\n"
                    f"{proc.stdout[-4000:]}\n--- stderr ---\n{proc.stderr[-8000:]}")
    return json.loads(lines[-1][len("FWRESULT "):])


def _check(info: dict) -> None:
    results = info["results"]
    assert len(results) == 12, results  # 11 queries with ANSI off, the overflow with it on
    for r in results:
        case = f"{r['query']} (ansi={r['ansi']})"
        assert r["equal"], f"{case}: fastwindow differs from Spark: {r['detail'] or r}"
        assert r["fastwindow_on"], f"{case}: FastWindow did not run:\n{r['plan_on']}"
        assert r["window_off"], f"{case}: Spark's Window did not run with fastwindow off"
        assert r["across_tasks"] == r["query"].startswith("across_tasks"), f"{case}: {r}"
        # (Other windows with PARTITION BY may split their keys too: at 4 tasks each of p's 13
        # keys holds more than a quarter of a task's share.)
        assert r["skewed_keys"] or r["query"] != "skewed_keys", f"{case}: {r}"
    # The overflowing sum fails under ANSI, identically on and off; the rest answers.
    errors = {(r["query"], r["ansi"]) for r in results if r["error"]}
    assert errors == {("overflow", "true")}, errors


def test_local_cluster_with_spark_submit_jars(tmp_path):
    jar = fastwindow.jar_path()
    info = _run_app([
        _spark_submit(), "--master", "local-cluster[2,1,1024]", "--jars", jar,
        "--conf", "spark.sql.extensions=fastwindow.FastWindowExtensions",
        "--conf", "spark.ui.enabled=false", "--conf", "spark.executor.memory=512m",
        "--driver-memory", "1g", "--driver-java-options", FIRST_TIER,
        "--conf", f"spark.executor.extraJavaOptions={FIRST_TIER}", str(APP), "submit"], tmp_path)
    assert info["executors"] == 2, "the cluster was to have two executor JVMs"
    _check(info)


def test_local_cluster_retries_failed_tasks_and_lost_executors(tmp_path):
    """A window spread over tasks gives Spark's answer when a task of its stage fails once, when
    a map task of its range shuffle fails once, and when an executor is killed in its stage
    (Spark runs the lost map tasks again): tests/apps/failure_app.py."""
    markers = tmp_path / "markers"
    markers.mkdir()
    info = _run_app([
        _spark_submit(), "--master", "local-cluster[2,1,1024]", "--jars", fastwindow.jar_path(),
        "--conf", "spark.sql.extensions=fastwindow.FastWindowExtensions",
        "--conf", "spark.ui.enabled=false", "--conf", "spark.executor.memory=512m",
        "--driver-memory", "1g", "--driver-java-options", FIRST_TIER,
        "--conf", f"spark.executor.extraJavaOptions={FIRST_TIER}",
        str(APP.parent / "failure_app.py"), str(markers)], tmp_path)
    cases = {r["case"]: r for r in info["results"]}
    assert set(cases) == {"window_task_fails", "map_task_fails", "executor_lost"}, cases
    for case, r in cases.items():
        assert r["fired"] and r["across_tasks"], f"{case}: {r}"
        assert r["equal"] and r["rows"] == 20000, f"{case}: {r}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def connect_server(tmp_path_factory):
    """A Spark Connect server on a loopback port, started the way the README says."""
    try:
        import pyspark.sql.connect.session  # noqa: F401 (the client's dependencies)
    except ImportError as exc:
        pytest.fail(f"the Spark Connect client is not installed ({exc}); "
                    "pip install 'pyspark[connect]'")
    port = _free_port()
    logs = tmp_path_factory.mktemp("connect-server")
    cmd = [_spark_submit(), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
           "--master", "local[2]", "--jars", fastwindow.jar_path(),
           "--driver-java-options", FIRST_TIER,
           "--conf", "spark.sql.extensions=fastwindow.FastWindowExtensions",
           "--conf", "spark.sql.extendedExplainProviders="
                     "fastwindow.explain.FastWindowExplainGenerator",
           "--conf", f"spark.connect.grpc.binding.port={port}",
           "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
           "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=4"]
    with open(logs / "server.log", "w") as log:
        server = subprocess.Popen(cmd, cwd=logs, env=_env(), stdout=log,
                                  stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 180
        while True:
            if server.poll() is not None:
                pytest.fail(f"the Connect server exited {server.returncode}:\n"
                            + (logs / "server.log").read_text()[-6000:])
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                pytest.fail("the Connect server did not listen within 180 s:\n"
                            + (logs / "server.log").read_text()[-6000:])
            time.sleep(1)
        yield f"sc://127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()


def test_spark_connect_server_with_the_extension(tmp_path, connect_server):
    info = _run_app([sys.executable, str(APP), "connect", connect_server], tmp_path)
    _check(info)
    # EXPLAIN EXTENDED from the client carries fastwindow's report (the server's provider).
    explain = info["extended_explain"]
    assert "== Extended Information (fastwindow) ==" in explain, explain
    assert explain.count("runs on fastwindow") == 2, explain
    # A bad value is refused by the server when it is set, by either route, and breaks nothing.
    bad = info["bad_setting"]
    assert all(e and "Invalid value 'maybe' for spark.fastwindow.enabled" in e
               for e in bad["errors"]), bad
    assert bad["select_1"] == 1, bad
