"""Runs Spark's own window test suites with fastwindow on and off, and compares.

    python tests/spark_suites.py [--out DIR] [--suites NAME,...]

Spark publishes its test classes and golden files as test-jars on Maven Central (up to 4.2.0
today). The sbt project ``sparkSuites`` (build.sbt) resolves them next to the installed Spark's
jars and fastwindow's classes; this script then runs, with ScalaTest's own runner:

* the window suites of Spark SQL (``SUITES``), whole, the SQL golden files about windows
  (``SQLQueryTestSuite``, against the golden results in the jar) and AQE's window test
  (``SELECTED_TESTS``): the golden files in a JVM of their own, the other suites in one JVM
  (a suite that aborts the run is recorded and the ones after it run in a fresh JVM);
* with ``spark.sql.extensions=fastwindow.FastWindowExtensions``, with a
  listener (``fastwindow.testing.PlanCounter``) counting the window operators of every executed
  plan, so the report says how many ran on FastWindow;
* without fastwindow: the golden files' suite, which regenerates the golden results with the
  installed Spark (see REGENERATED_SUITES; kept in the user's cache under the names and sizes of
  the Spark jars and test-jars that made them, and taken from there while those do not change: see
  golden_cache), and with ``--baseline`` every suite, which tells
  which failures are Spark's own (``FAIL_WITHOUT_FASTWINDOW``; run it when the installed Spark or
  the test-jars change: their outcome without fastwindow is fixed by those versions, so CI does
  not pay for it on every run).

A test that fails with fastwindow on but passes without it is a fastwindow bug unless it is one of
``PLAN_CLASS_ASSERTIONS``: tests that assert Spark's own operator class or its private metrics,
each reviewed, each with the reason (and a test of ours checking its real intent). Tests that
fail both ways fail for reasons outside fastwindow (the 4.2 test classes against a 4.3 runtime),
listed in ``FAIL_WITHOUT_FASTWINDOW`` with what was seen. ``tests/test_spark_suites.py`` asserts
that the outcome is exactly this.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Set

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from line_suite import cache_dir  # noqa: E402  (the cache the other lines' venvs use)
from spark_suites_reviewed import (  # noqa: E402  (the reviewed outcomes)
    ABORTED, FAIL_WITHOUT_FASTWINDOW, PLAN_CLASS_ASSERTIONS, Test)

SUITES = [
    "org.apache.spark.sql.DataFrameWindowFunctionsSuite",
    "org.apache.spark.sql.DataFrameWindowFramesSuite",
    "org.apache.spark.sql.execution.SQLWindowFunctionSuite",
    "org.apache.spark.sql.execution.RemoveRedundantWindowGroupLimitsSuite",
    "org.apache.spark.sql.execution.window.SegmentTreeWindowFunctionSuite",
    "org.apache.spark.sql.execution.window.SegmentTreeWindowMetricsSuite",
    "org.apache.spark.sql.execution.window.WindowSegmentTreeAllowlistSuite",
]
GOLDEN_SUITE = "org.apache.spark.sql.SQLQueryTestSuite"
#: The golden files with window queries (SQLQueryTestSuite names its tests by their paths; each
#: file also has a `<file>_analyzer_test`, which prints the analyzed plans and runs no query
#: through the planner, so fastwindow cannot change it: not run). udf/udf-window.sql is left
#: out: its Python test UDFs do not link against 4.3 (NoSuchMethodError, with or without
#: fastwindow), which aborts the whole suite.
GOLDEN_FILES = ["pipe-operators.sql", "postgreSQL/window_part1.sql", "postgreSQL/window_part2.sql",
                "postgreSQL/window_part3.sql", "postgreSQL/window_part4.sql",
                "typeCoercion/native/windowFrameCoercion.sql", "window.sql"]
#: Suites run only in part, as ScalaTest Runner selections: exact test names (-t) or substrings
#: (-z).
SELECTED_TESTS: Dict[str, List[str]] = {
    GOLDEN_SUITE: [arg for f in GOLDEN_FILES for arg in ("-t", f)],
    "org.apache.spark.sql.execution.adaptive.AdaptiveQueryExecSuite": ["-z", "SPARK-50258"],
}
#: Golden files compare doubles exactly: with fastwindow they run with Spark's float order.
EXACT_FLOATS_SUITES = {GOLDEN_SUITE}
#: The run without fastwindow regenerates the golden results of these suites with the installed
#: Spark (SPARK_GENERATE_GOLDEN_FILES), so the run with fastwindow compares every query with
#: this Spark's answer: the 4.2 results differ from 4.3's in a few error messages, and a golden
#: test stops at its first difference, which would leave the queries after it unchecked.
REGENERATED_SUITES = {GOLDEN_SUITE}
ALL_SUITES = SUITES + list(SELECTED_TESTS)

JAVA_OPTIONS = [
    # The JIT's first tier only: each suite is a JVM of a few minutes, too short for the
    # optimizing tier to earn back its compiles (Spark's suites 14.1 -> 9.2 min in CI).
    "-Xmx3g", "-XX:+IgnoreUnrecognizedVMOptions", "-XX:TieredStopAtLevel=1",
    *(f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in (
        "java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net", "java.nio",
        "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "jdk.internal.ref",
        "sun.nio.ch", "sun.nio.cs", "sun.security.action", "sun.util.calendar")),
    "--add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
    "-Djdk.reflect.useDirectMethodHandle=false",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dspark.ui.enabled=false",
]


@dataclass
class Outcome:
    """One run of the suites: which tests failed, how many ran, window operators seen."""
    passed: Set[Test] = field(default_factory=set)
    failed: Dict[Test, str] = field(default_factory=dict)
    fastwindow_nodes: int = 0
    window_nodes: int = 0
    seconds: float = 0.0


def sbt_classpath() -> str:
    """The sparkSuites project's test classpath (compiles fastwindow and resolves the jars)."""
    out = subprocess.run(["bash", ".ci/sbt", "export sparkSuites/Test/fullClasspath"],
                         cwd=ROOT, check=True, capture_output=True, text=True,
                         env=dict(os.environ, CI=os.environ.get("CI", "true"))).stdout
    lines = [line for line in out.splitlines() if line.strip() and not line.startswith("[")]
    if not lines:
        raise RuntimeError(f"sbt printed no classpath:\n{out}")
    return lines[-1].strip()


def unpack_test_resources(classpath: str, home: Path) -> str:
    """Unpacks what Spark's tests read as files: the golden files (from
    ``$spark.test.home/sql/core/src/test/resources``) and the test data (resources, which must
    be files, not jar entries: they are read as paths). Returns the classpath with the unpacked
    resources first."""
    jar = next((p for p in classpath.split(os.pathsep)
                if Path(p).name.startswith("spark-sql_") and p.endswith("-tests.jar")), None)
    if jar is None:
        raise RuntimeError("no spark-sql test-jar on the sparkSuites classpath")
    golden = home / "sql" / "core" / "src" / "test" / "resources"
    resources = home / "resources"
    for target in (golden, resources):
        if target.exists():
            shutil.rmtree(target)
    with zipfile.ZipFile(jar) as z:
        names = z.namelist()
        z.extractall(golden, [n for n in names if n.startswith("sql-tests/")])
        z.extractall(resources, [n for n in names if n.startswith("test-data/")])
    return os.pathsep.join([str(resources), classpath])


def run_suites(classpath: str, home: Path, out: Path, fastwindow: bool,
               suites: List[str], before_suite=lambda suite: None,
               after_suite=lambda suite: None) -> Outcome:
    """Runs the suites, fastwindow on or not installed at all; ``before_suite``/``after_suite``
    are called around each. The golden files' suite runs in a JVM of its own (its settings
    differ); the others share one, which saves each suite's JVM start and JIT warm-up (all the
    suites 472 -> 378 s alone). An abort (an Error, e.g. a test-jar's NoSuchMethodError
    against a newer runtime) ends a ScalaTest run: the suite that aborted is recorded and the
    suites after it run again in a fresh JVM."""
    reports = out / ("on" if fastwindow else "off")
    if reports.exists():
        shutil.rmtree(reports)
    reports.mkdir(parents=True)
    counts = reports / "plans.txt"
    props = [f"-Dspark.test.home={home}", "-Dspark.extraListeners=fastwindow.testing.PlanCounter",
             f"-Dfastwindow.planCounter.file={counts}"]
    if fastwindow:
        props += ["-Dspark.sql.extensions=fastwindow.FastWindowExtensions",
                  # Spark's small test tables across tasks too, not only in one task.
                  "-Dspark.fastwindow.acrossTasks.minInputSize=0"]
    outcome = Outcome()
    start = time.monotonic()
    alone = REGENERATED_SUITES | EXACT_FLOATS_SUITES
    batches: List[List[str]] = []  # in the given order; neighbours that may share a JVM share it
    for suite in suites:
        if suite in alone or not batches or batches[-1][0] in alone:
            batches.append([suite])
        else:
            batches[-1].append(suite)
    runs = 0
    for batch in batches:
        for suite in batch:
            before_suite(suite)
        todo = list(batch)
        while todo:
            runs += 1
            exact = (["-Dspark.fastwindow.exactFloats=true"]
                     if fastwindow and todo[0] in EXACT_FLOATS_SUITES else [])
            selection = [arg for suite in todo
                         for arg in ("-s", suite, *SELECTED_TESTS.get(suite, []))]
            cmd = ["java", *JAVA_OPTIONS, *props, *exact, "-cp", classpath,
                   "org.scalatest.tools.Runner", "-oW", "-u", str(reports), *selection]
            log = reports / f"run-{runs}.txt"
            env = dict(os.environ)
            if not fastwindow and todo[0] in REGENERATED_SUITES:
                env["SPARK_GENERATE_GOLDEN_FILES"] = "1"
            with open(log, "w") as f:
                subprocess.run(cmd, cwd=home, env=env, stdout=f, stderr=subprocess.STDOUT,
                               check=False)
            todo = read_run(reports, log, todo, outcome)
        for suite in batch:
            after_suite(suite)
    outcome.seconds = time.monotonic() - start
    if counts.exists():
        for line in counts.read_text().split("\n"):
            if line.strip():
                fast, spark = line.split()
                outcome.fastwindow_nodes += int(fast)
                outcome.window_nodes += int(spark)
    return outcome


def read_run(reports: Path, log: Path, suites: List[str], outcome: Outcome) -> List[str]:
    """Adds one ScalaTest run's reports of ``suites`` (run in this order) to ``outcome``, and
    writes each suite's part of the run's output to ``<suite>.txt``. Returns the suites the run
    did not reach: those after the first suite with no report, which aborted the run."""
    output = log.read_text(errors="replace")
    # ScalaTest heads each suite's output with its simple name and a colon.
    starts = [output.find(f"\n{suite.rsplit('.', 1)[-1]}:\n") for suite in suites]
    for k, suite in enumerate(suites):
        ends = [s for s in starts[k + 1:] if s > starts[k]]
        section = output[max(starts[k], 0):(ends[0] if ends else len(output))]
        (reports / f"{suite}.txt").write_text(section)
        report = reports / f"TEST-{suite}.xml"
        if report.exists():
            read_report(report, outcome)
        if not report.exists() or "ABORTED ***" in section:
            causes = [ln for ln in section.splitlines() if "Exception" in ln or "Error" in ln]
            outcome.failed[(suite, ABORTED)] = (causes[0] if causes else "no report")[:300]
        if not report.exists():
            return suites[k + 1:]
    return []


def read_report(report: Path, outcome: Outcome) -> None:
    """Adds the passed and failed tests of one JUnit XML report to `outcome`."""
    for case in ET.parse(report).getroot().iter("testcase"):
        test = (case.get("classname", ""), case.get("name", ""))
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is not None:
            outcome.failed[test] = (problem.get("message") or problem.text or "").strip()[:300]
        elif case.find("skipped") is None:
            outcome.passed.add(test)


def key(test: Test) -> str:
    """How reports name a test."""
    return f"{test[0]} :: {test[1]}"


def compare(on: Outcome, off: Outcome, off_suites: Set[str]) -> Dict[str, Dict[str, str]]:
    """Failures with fastwindow on, sorted into what they are. A listed failure of Spark's own
    (FAIL_WITHOUT_FASTWINDOW) in a suite not run without fastwindow (``off_suites``) counts as
    failing both ways."""
    result: Dict[str, Dict[str, str]] = {
        "fastwindow_only": {}, "plan_class_assertions": {}, "both": {},
        "listed_but_passed": {}}
    for test, message in sorted(on.failed.items()):
        if test in off.failed:
            result["both"][key(test)] = f"on: {message} | off: {off.failed[test]}"
        elif test[0] not in off_suites and test in FAIL_WITHOUT_FASTWINDOW:
            result["both"][key(test)] = f"on: {message} | off (listed): {FAIL_WITHOUT_FASTWINDOW[test]}"
        elif test in PLAN_CLASS_ASSERTIONS:
            result["plan_class_assertions"][key(test)] = PLAN_CLASS_ASSERTIONS[test]
        else:
            result["fastwindow_only"][key(test)] = message
    for test, reason in {**PLAN_CLASS_ASSERTIONS, **FAIL_WITHOUT_FASTWINDOW}.items():
        if test in on.passed:
            result["listed_but_passed"][key(test)] = reason
    return result


GOLDEN = Path("sql") / "core" / "src" / "test" / "resources"


def golden_cache(classpath: str) -> Path:
    """Where the installed Spark's regenerated golden results are kept. They are a function of
    the Spark runtime and the test-jars (named by their jars' names and sizes: a release's jars
    never change), of the golden files run and of how the JVM runs them; a folder per key."""
    spark_jars = sorted(f"{Path(p).name}:{Path(p).stat().st_size}"
                        for p in classpath.split(os.pathsep)
                        if Path(p).name.startswith("spark-") and p.endswith(".jar")
                        and Path(p).is_file())
    key = "\n".join([*spark_jars, GOLDEN_SUITE, *GOLDEN_FILES, *JAVA_OPTIONS])
    return cache_dir() / "spark-suites-golden" / hashlib.sha256(key.encode()).hexdigest()[:20]


def regenerated_cleanly(reports: Path, suite: str) -> bool:
    """Whether ``suite``'s run wrote its report with no test failed and did not abort."""
    report, log = reports / f"TEST-{suite}.xml", reports / f"{suite}.txt"
    if not report.exists() or "ABORTED ***" in log.read_text(errors="replace"):
        return False
    outcome = Outcome()
    read_report(report, outcome)
    return bool(outcome.passed) and not outcome.failed


def keep_regenerated(home: Path, since: float, cache: Path) -> None:
    """Copies the golden results the run without fastwindow wrote (newer than ``since``) into
    ``cache``, whole or not at all; a cache that cannot be written is skipped."""
    staging = cache.with_name(cache.name + f".tmp{os.getpid()}")
    if cache.exists():
        return
    try:
        shutil.rmtree(staging, ignore_errors=True)
        written = [f for f in (home / GOLDEN).rglob("*") if f.is_file() and f.stat().st_mtime > since]
        if not written:
            return
        for f in written:
            target = staging / f.relative_to(home / GOLDEN)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)
        staging.rename(cache)
    except OSError as e:
        print(f"[spark_suites] golden results not kept in {cache}: {e}", file=sys.stderr)
        shutil.rmtree(staging, ignore_errors=True)


def run(out: Path, suites: List[str], baseline: bool = False) -> Dict[str, object]:
    """Runs `suites` with fastwindow on, and without it the golden files' suite (every suite
    with `baseline`), the two runs side by side, in Spark homes of their own (the suites write
    tables under it); returns (and writes) the report. The run without fastwindow regenerates the
    golden files first (or they come from the cache); the run with it takes them last, once they
    are there."""
    out.mkdir(parents=True, exist_ok=True)
    off_home, on_home = out / "spark-home", out / "spark-home-on"
    classpath = unpack_test_resources(sbt_classpath(), off_home)
    if on_home.exists():
        shutil.rmtree(on_home)
    shutil.copytree(off_home, on_home)
    unpacked = time.time()  # what the golden suite writes after this is what it regenerated
    cache = golden_cache(classpath)
    cached = cache.is_dir() and not baseline
    regenerated = threading.Event()

    def mark_regenerated(suite: str) -> None:
        if suite in REGENERATED_SUITES:
            if regenerated_cleanly(out / "off", suite):
                keep_regenerated(off_home, unpacked, cache)
            regenerated.set()

    def take_regenerated(suite: str) -> None:
        if suite in REGENERATED_SUITES and not cached:
            regenerated.wait()
            shutil.rmtree(on_home / GOLDEN)
            shutil.copytree(off_home / GOLDEN, on_home / GOLDEN)

    def run_off() -> Outcome:
        try:
            return run_suites(classpath, off_home, out, False, off_suites,
                              after_suite=mark_regenerated)
        finally:  # never leave the other run waiting
            regenerated.set()

    if cached:  # the kept results over the test-jar's
        shutil.copytree(cache, on_home / GOLDEN, dirs_exist_ok=True)
    off_suites = sorted((s for s in suites if baseline or (s in REGENERATED_SUITES and not cached)),
                        key=lambda s: s not in REGENERATED_SUITES)
    regenerated_last = sorted(suites, key=lambda s: s in REGENERATED_SUITES)
    with ThreadPoolExecutor(2) as pool:
        off_run = pool.submit(run_off)
        on_run = pool.submit(run_suites, classpath, on_home, out, True, regenerated_last,
                             before_suite=take_regenerated)
        off = off_run.result()
        on = on_run.result()
    report: Dict[str, object] = {
        "tests": {"on": len(on.passed) + len(on.failed), "off": len(off.passed) + len(off.failed)},
        "suites_without_fastwindow": off_suites,
        "golden_results": f"{'kept in' if cached else 'regenerated into'} {cache}",
        "seconds": {"on": round(on.seconds), "off": round(off.seconds)},
        "window_operators_with_fastwindow": {"FastWindow": on.fastwindow_nodes,
                                             "Window": on.window_nodes},
        **compare(on, off, set(off_suites)),
    }
    (out / "report.json").write_text(json.dumps(report, indent=2))
    return report


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "target" / "spark-suites")
    p.add_argument("--suites", default=",".join(ALL_SUITES),
                   help="comma-separated suite classes")
    p.add_argument("--baseline", action="store_true",
                   help="also run every suite without fastwindow (to classify failures)")
    args = p.parse_args(argv)
    report = run(args.out, [s for s in args.suites.split(",") if s], args.baseline)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
