"""Runs Spark's own window test suites with fastwindow on and off, and compares.

    python tests/spark_suites.py [--out DIR] [--suites NAME,...]

Spark publishes its test classes and golden files as test-jars on Maven Central (up to 4.2.0
today). The sbt project ``sparkSuites`` (build.sbt) resolves them next to the installed Spark's
jars and fastwindow's classes; this script then runs, with ScalaTest's own runner:

* the window suites of Spark SQL (``SUITES``), whole, the SQL golden files about windows
  (``SQLQueryTestSuite``, against the golden results in the jar) and AQE's window test
  (``SELECTED_TESTS``), each suite in a JVM of its own;
* with ``spark.sql.extensions=fastwindow.FastWindowExtensions``, each in a fresh JVM, with a
  listener (``fastwindow.testing.PlanCounter``) counting the window operators of every executed
  plan, so the report says how many ran on FastWindow;
* without fastwindow: the golden files' suite, which regenerates the golden results with the
  installed Spark (see REGENERATED_SUITES), and with ``--baseline`` every suite, which tells
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
from typing import Dict, List, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent

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
#: The golden files with window queries (SQLQueryTestSuite names its tests by their paths, and
#: runs each file twice: its results, then `<file>_analyzer_test`). udf/udf-window.sql is left
#: out: its Python test UDFs do not link against 4.3 (NoSuchMethodError, with or without
#: fastwindow), which aborts the whole suite.
GOLDEN_FILES = ["pipe-operators.sql", "postgreSQL/window_part1.sql", "postgreSQL/window_part2.sql",
                "postgreSQL/window_part3.sql", "postgreSQL/window_part4.sql",
                "typeCoercion/native/windowFrameCoercion.sql", "window.sql"]
#: Suites run only in part, as ScalaTest Runner selections: exact test names (-t) or substrings
#: (-z).
SELECTED_TESTS: Dict[str, List[str]] = {
    GOLDEN_SUITE: [arg for f in GOLDEN_FILES for arg in ("-t", f, "-t", f"{f}_analyzer_test")],
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
#: How a suite that aborted is named among the tests.
ABORTED = "<suite aborted>"

Test = Tuple[str, str]  # (suite class, test name)

DFWF = "org.apache.spark.sql.DataFrameWindowFunctionsSuite"
METRICS = "org.apache.spark.sql.execution.window.SegmentTreeWindowMetricsSuite"
ALLOWLIST = "org.apache.spark.sql.execution.window.WindowSegmentTreeAllowlistSuite"
_SEGMENT_TREE = ("reads the segment-tree metrics or routing of Spark's own WindowExec "
                 "(spark.sql.window.segmentTree.enabled); fastwindow runs the window itself, "
                 "in O(n) for these frames; its results are compared in tests/test_sliding_frames.py")

#: Tests that fail with fastwindow only because they look at Spark's own operator (its class, its
#: metrics) rather than at results, or assert an error that fastwindow's SQL extension lifts
#: (DISTINCT window aggregates), each with the test of ours that checks its intent.
PLAN_CLASS_ASSERTIONS: Dict[Test, str] = {
    ("org.apache.spark.sql.execution.RemoveRedundantWindowGroupLimitsSuite",
     "remove redundant WindowGroupLimits"):
        "counts WindowGroupLimitExec nodes; fastwindow plans FastGroupLimit there, whose final "
        "mode reads the partial's input directly when it is already clustered (the partial does "
        "no work): test_group_limit.py::"
        "test_partial_limit_is_skipped_when_its_input_is_already_clustered",
    (DFWF, "SPARK-38237: require all cluster keys for child required distribution for window "
           "query"):
        "finds the shuffle below `case w: WindowExec`; the same hashpartitioning(key1, key2) "
        "shuffle is below FastWindow: test_spark_intents.py::"
        "test_window_shuffles_by_all_cluster_keys_when_required",
    ("org.apache.spark.sql.execution.adaptive.AdaptiveQueryExecSuite",
     "SPARK-50258: Fix output column order changed issue after AQE optimization"):
        "asserts the final plan's operator isInstanceOf[WindowExec]; the column order it is "
        "about holds: test_spark_intents.py::test_adaptive_replanning_keeps_the_column_order",
    **{(METRICS, name): _SEGMENT_TREE for name in (
        "T1 (G1) numPartitions > numTasks, identical length: every partition counted",
        "T2 (G2) identical-length partitions across keys",
        "T3 (G3) all-length-1 unique keys, fallback path: every partition counted",
        "T4 (G4) mixed segtree + fallback, non-aliasing order",
        "fallback path increments numSegmentTreeFallbackFrames",
        "feature flag off: both segment-tree counters stay at zero",
        "segment-tree path increments numSegmentTreeFrames (one per frame per partition)")},
    **{(ALLOWLIST, name): _SEGMENT_TREE for name in (
        "FILTER (WHERE ...) disables segment-tree path",
        "avg routes to the segment-tree path", "count routes to the segment-tree path",
        "max routes to the segment-tree path", "min routes to the segment-tree path",
        "stddev_pop routes to the segment-tree path", "stddev_samp routes to the segment-tree path",
        "sum routes to the segment-tree path", "var_pop routes to the segment-tree path",
        "var_samp routes to the segment-tree path")},
    ("org.apache.spark.sql.execution.SQLWindowFunctionSuite",
     "window function: distinct should not be silently ignored"):
        "asserts that Spark rejects sum(DISTINCT ...) OVER; fastwindow's DISTINCT extension "
        "answers it (README, \"DISTINCT window aggregates\"), against an independent reference: "
        "test_distinct.py::test_distinct_aggregates_over_every_frame_equal_an_independent_reference",
    (ALLOWLIST, "collect_list falls through (unbounded buffer)"):
        "asserts Spark's WindowExec runs collect_list (off its segment-tree path); fastwindow "
        "runs collect_list over every frame itself: test_distinct.py::"
        "test_collect_list_of_every_type_over_every_frame",
    (ALLOWLIST, "collect_set falls through (unbounded buffer)"):
        "asserts Spark's WindowExec runs collect_set; fastwindow runs Spark's own set over each "
        "frame in order (same element order): test_distinct.py::"
        "test_collect_set_arrays_and_histograms_over_every_frame",
    (ALLOWLIST, "approx_count_distinct (HyperLogLog++) falls through (fail-closed)"):
        "asserts Spark's WindowExec runs approx_count_distinct; fastwindow keeps each frame's "
        "registers of Spark's own sketch (results exactly Spark's): test_approx.py::"
        "test_approx_count_distinct_over_wide_frames_equals_spark",
    (ALLOWLIST, "percentile_approx falls through (sketch buffer not auditable)"):
        "asserts Spark's WindowExec runs percentile_approx; fastwindow runs it where Spark's "
        "answer is an order statistic and hands other partitions to Spark: test_approx.py::"
        "test_percentile_approx_over_wide_frames",
    # A streamed window holds O(frame) rows and never enters Spark's spillable window buffer, so
    # Spark's buffer thresholds do not make it spill (README, "Spark's spill thresholds").
    **{test: "expects the running sum it runs to spill at tiny window-buffer thresholds; "
             "fastwindow streams it without the buffer (same results). Buffered partitions do "
             "spill at those thresholds: test_spark_intents.py::"
             "test_spill_thresholds_apply_to_buffered_partitions and "
             "test_streamed_windows_do_not_enter_the_spillable_buffer"
       for test in (
           (DFWF, "Window spill with more than the inMemoryThreshold and spillThreshold"),
           (DFWF, "SPARK-49386: Window spill with more than the inMemoryThreshold and "
                  "spillSizeThreshold"),
           ("org.apache.spark.sql.execution.SQLWindowFunctionSuite",
            "test with low buffer spill threshold"))},
}

#: Tests that fail with and without fastwindow: the 4.2.0 test classes on the 4.3 runtime.
FAIL_WITHOUT_FASTWINDOW: Dict[Test, str] = {
    ("org.apache.spark.sql.execution.window.SegmentTreeWindowFunctionSuite", ABORTED):
        "NoSuchMethodError: TaskContextImpl's constructor changed in 4.3 (the suite's "
        "fakeTaskContext helper)",
    **{(ALLOWLIST, name): "4.3 routes order-dependent aggregates differently from the 4.2 "
                          "test's expectation"
       for name in ("first_value falls through (order-dependent aggregate)",
                    "last_value falls through (order-dependent aggregate)",
                    "mix of allowlisted + non-allowlisted aggregates falls through entirely")},
}

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
    """Runs each suite in a fresh JVM (an abort then loses only that suite); fastwindow on, or
    not installed at all. ``before_suite``/``after_suite`` are called around each."""
    reports = out / ("on" if fastwindow else "off")
    if reports.exists():
        shutil.rmtree(reports)
    reports.mkdir(parents=True)
    counts = reports / "plans.txt"
    props = [f"-Dspark.test.home={home}", "-Dspark.extraListeners=fastwindow.testing.PlanCounter",
             f"-Dfastwindow.planCounter.file={counts}"]
    if fastwindow:
        props.append("-Dspark.sql.extensions=fastwindow.FastWindowExtensions")
    outcome = Outcome()
    start = time.monotonic()
    for suite in suites:
        before_suite(suite)
        selection = ["-s", suite, *SELECTED_TESTS.get(suite, [])]
        exact = (["-Dspark.fastwindow.exactFloats=true"]
                 if fastwindow and suite in EXACT_FLOATS_SUITES else [])
        cmd = ["java", *JAVA_OPTIONS, *props, *exact, "-cp", classpath,
               "org.scalatest.tools.Runner", "-oW", "-u", str(reports), *selection]
        log = reports / f"{suite}.txt"
        env = dict(os.environ)
        if not fastwindow and suite in REGENERATED_SUITES:
            env["SPARK_GENERATE_GOLDEN_FILES"] = "1"
        with open(log, "w") as f:
            subprocess.run(cmd, cwd=home, env=env, stdout=f, stderr=subprocess.STDOUT,
                           check=False)
        after_suite(suite)
        report = reports / f"TEST-{suite}.xml"
        output = log.read_text(errors="replace")
        if report.exists():
            read_report(report, outcome)
        if not report.exists() or "ABORTED ***" in output:
            causes = [line for line in output.splitlines() if "Exception" in line or "Error" in line]
            outcome.failed[(suite, ABORTED)] = (causes[0] if causes else "no report")[:300]
    outcome.seconds = time.monotonic() - start
    if counts.exists():
        for line in counts.read_text().split("\n"):
            if line.strip():
                fast, spark = line.split()
                outcome.fastwindow_nodes += int(fast)
                outcome.window_nodes += int(spark)
    return outcome


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


def run(out: Path, suites: List[str], baseline: bool = False) -> Dict[str, object]:
    """Runs `suites` with fastwindow on, and without it the golden files' suite (every suite
    with `baseline`), the two runs side by side, in Spark homes of their own (the suites write
    tables under it); returns (and writes) the report. The run without fastwindow regenerates the
    golden files first; the run with it takes them last, once they are there."""
    out.mkdir(parents=True, exist_ok=True)
    off_home, on_home = out / "spark-home", out / "spark-home-on"
    classpath = unpack_test_resources(sbt_classpath(), off_home)
    if on_home.exists():
        shutil.rmtree(on_home)
    shutil.copytree(off_home, on_home)
    regenerated = threading.Event()
    golden = Path("sql") / "core" / "src" / "test" / "resources"

    def mark_regenerated(suite: str) -> None:
        if suite in REGENERATED_SUITES:
            regenerated.set()

    def take_regenerated(suite: str) -> None:
        if suite in REGENERATED_SUITES:
            regenerated.wait()
            shutil.rmtree(on_home / golden)
            shutil.copytree(off_home / golden, on_home / golden)

    def run_off() -> Outcome:
        try:
            return run_suites(classpath, off_home, out, False, off_suites,
                              after_suite=mark_regenerated)
        finally:  # never leave the other run waiting
            regenerated.set()

    off_suites = sorted((s for s in suites if baseline or s in REGENERATED_SUITES),
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
