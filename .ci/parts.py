"""Runs fastwindow's test parts, two at a time, and prints what each took:  python3 .ci/parts.py

    python3 .ci/parts.py [--quick] [--workers N] [--only PART,...] [--list] [-- pytest args]

The tests are independent parts (scalafmt and the Scala unit tests, the differential suite on the installed
Spark in shards, Spark's own window suites, the other Spark lines, the deployments). Each is a
process of its own with its own Spark, so they run side by side: two at a time by default, one
per core of the 2-core machines CI and developers have (``--workers`` or FASTWINDOW_CI_WORKERS
to change it), longest first so the last part to start is a short one. The other Spark lines
start after the wheel they install is built.

Each part's output goes to ``target/ci/<part>.log``; a part's closing lines are printed when it
ends (all of its log when it fails), and at the end a table of every part's time and result, and
one line with the number of tests that passed and failed in all.

``--quick`` is the contributors' loop: the Scala unit tests and, on the installed Spark's generated
evaluator, what the other Spark lines run of the differential suite (every aggregate family over
every frame kind, random queries, ranking, offsets, fallbacks, entry routes, memory and the hash
operators), without the slow parts (other lines, Spark's suites, deployments). CI runs everything.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
LOGS = ROOT / "target" / "ci"

#: Test files run by parts of their own (not by the shards of the differential suite).
OWN_PARTS = {"test_line_suite.py", "test_spark_suites.py", "test_deployments.py",
             "test_comet.py"}

#: Seconds per test file of the differential suite (its codegen modes), two shards side by side on 2
#: cores (``--file-seconds`` after a run prints them), used only to balance the shards; a new
#: file counts as SHARD_DEFAULT.
FILE_SECONDS: Dict[str, float] = {
    'test_across_tasks.py': 165, 'test_across_tasks_inputs.py': 90,
    'test_across_tasks_shrinking.py': 15, 'test_aggregates.py': 77,
    'test_approx.py': 148,
    'test_bench_smoke.py': 70, 'test_build_backend.py': 31, 'test_collations.py': 11,
    'test_comoments.py': 66, 'test_counter_diff.py': 12, 'test_decimal_results.py': 92,
    'test_distinct.py': 140,
    'test_docker_example.py': 45, 'test_docs.py': 1, 'test_edge_inputs.py': 68,
    'test_entry_routes.py': 44, 'test_exact_floats.py': 36, 'test_fallback.py': 7,
    'test_group_limit.py': 105, 'test_group_sort.py': 106, 'test_hash_window.py': 60,
    'test_interval_sums.py': 33, 'test_key_aggregates.py': 65, 'test_memory_pressure.py': 29,
    'test_mode.py': 25, 'test_module_sizes.py': 1, 'test_moments_and_bits.py': 56,
    'test_more_aggregates.py': 170, 'test_offset.py': 16, 'test_percentiles.py': 38,
    'test_python_api_cli.py': 72, 'test_python_api_jar.py': 1, 'test_python_api_session.py': 1,
    'test_random_queries.py': 178, 'test_range_frames.py': 126, 'test_ranking.py': 26,
    'test_settings.py': 3, 'test_skewed_keys.py': 33, 'test_sliding_frames.py': 41,
    'test_spark_intents.py': 15, 'test_spill.py': 56, 'test_streaming.py': 90}
SHARD_DEFAULT = 30.0
#: Shards of the differential suite on the installed Spark (see parts()).
SHARDS = 4
#: What the installed line's deployments part runs a superset of: spark-submit --jars with the
#: extension setting, there on a local-cluster with executors of their own (the other lines,
#: which have no deployments part, run it).
COVERED_BY_DEPLOYMENTS = ["--deselect",
                          "tests/test_entry_routes.py::test_route_spark_submit_jars"]


@dataclass
class Part:
    """One test part: a command, the seconds it is expected to take (for the order), and the
    parts that must end first."""
    name: str
    command: List[str]
    seconds: float
    env: Dict[str, str] = field(default_factory=dict)
    after: Sequence[str] = ()
    junit: Optional[Path] = None
    #: pytest run with a selection of the user's (-k ...), which may leave a shard no test
    selective: bool = False


@dataclass
class Outcome:
    part: Part
    returncode: int
    seconds: float
    passed: int = 0
    failed: int = 0
    skipped: int = 0


def pytest_part(name: str, targets: List[str], seconds: float, extra: Sequence[str] = (),
                env: Optional[Dict[str, str]] = None, after: Sequence[str] = ()) -> Part:
    junit = LOGS / f"{name}.xml"
    command = [sys.executable, "-m", "pytest", *targets, "-p", "no:cacheprovider", "-ra",
               "--durations=15", f"--junitxml={junit}", *extra]
    return Part(name, command, seconds, dict(env or {}, PYTHONPATH=str(TESTS)), after, junit,
                selective=bool(extra))


def shards(files: List[str], count: int) -> List[List[str]]:
    """``files`` in ``count`` groups of about equal expected time (largest first, each into the
    lightest group)."""
    groups: List[List[str]] = [[] for _ in range(count)]
    load = [0.0] * count
    for f in sorted(files, key=lambda f: -FILE_SECONDS.get(f, SHARD_DEFAULT)):
        k = load.index(min(load))
        groups[k].append(f)
        load[k] += FILE_SECONDS.get(f, SHARD_DEFAULT)
    return [sorted(g) for g in groups if g]


def differential_files() -> List[str]:
    return sorted(p.name for p in TESTS.glob("test_*.py") if p.name not in OWN_PARTS)


#: Expected minutes of each other Spark line's run (tests/line_suite.py LINES), for the order.
LINE_MINUTES = {"3.5": 7.5, "3.5_2.13": 1.5, "4.0": 5.5, "4.1": 3.6, "4.1_comet": 2.0, "4.2": 3.8}
WHEEL_DIR = LOGS / "wheel"


def line_parts() -> List[Part]:
    """The release wheel (one jar per line), then each other line's suite from it. 3.5 built for
    Scala 2.13 shares 3.5's virtual environment, so it runs after it."""
    sys.path.insert(0, str(TESTS))
    from line_suite import LINES

    env = {"FASTWINDOW_TEST_WHEEL_DIR": str(WHEEL_DIR)}
    suite = str(TESTS / "test_line_suite.py")
    wheel = pytest_part("wheel", [f"{suite}::test_the_wheel_carries_a_jar_per_line",
                                  f"{suite}::test_the_release_artifacts_pass_twine_check"],
                        150, env=env)
    lines = []
    for line in LINES:
        same_venv = [f"line-{other}" for other in LINES
                     if other != line and other.split("_")[0] == line.split("_")[0]
                     and list(LINES).index(other) < list(LINES).index(line)]
        lines.append(pytest_part(f"line-{line}", [f"{suite}::test_line[{line}]"],
                                 60 * LINE_MINUTES.get(line, 4.0), env=env,
                                 after=["wheel", *same_venv]))
    return [wheel, *lines]


def quick_suite() -> List[str]:
    """What ``--quick`` runs of the differential suite: what the other Spark lines with shims of
    their own run (tests/line_suite.py), on the installed Spark."""
    sys.path.insert(0, str(TESTS))
    from line_suite import (CORE_LINE_SUITE, MEMORY_AND_HASH_SUITE, OWN_SHIM_SUITE,
                            SESSION_SHIM_SUITE)

    return [*CORE_LINE_SUITE, *SESSION_SHIM_SUITE, *OWN_SHIM_SUITE, *MEMORY_AND_HASH_SUITE]


def parts(quick: bool, pytest_args: Sequence[str]) -> List[Part]:
    scala = Part("scala", ["bash", str(ROOT / ".ci" / "sbt"), "scalafmtCheckAll", "test"], 270)
    if quick:
        env = {"FASTWINDOW_TEST_CODEGEN_MODES": "CODEGEN_ONLY", "FASTWINDOW_RANDOM_QUERIES": "40"}
        return [scala] + [
            pytest_part(f"pytest-{k + 1}", [str(TESTS / f) for f in group], 240, pytest_args, env)
            for k, group in enumerate(shards(quick_suite(), 2))]
    # More shards than workers, so the other parts fill in around them; not many more, since
    # each session's JIT spends its first minutes compiling Spark's planner and Janino.
    installed = [
        pytest_part(f"pytest-{k + 1}", [str(TESTS / f) for f in group] + COVERED_BY_DEPLOYMENTS,
                    sum(FILE_SECONDS.get(f, SHARD_DEFAULT) for f in group), pytest_args)
        for k, group in enumerate(shards(differential_files(), SHARDS))]
    return [scala, *installed,
            pytest_part("deployments", [str(TESTS / "test_deployments.py")], 200),
            # Its sbt waits for the Scala tests' sbt anyway (one sbt per checkout).
            pytest_part("spark-suites", [str(TESTS / "test_spark_suites.py")], 540,
                        after=["scala"]),
            *line_parts()]


def summary_of(part: Part, log: str) -> "tuple[int, int, int]":
    """(passed, failed, skipped) from the part's JUnit report, or sbt's closing line."""
    if part.junit is not None and part.junit.exists():
        passed = failed = skipped = 0
        for suite in ET.parse(part.junit).getroot().iter("testsuite"):
            tests, fails = int(suite.get("tests", 0)), int(suite.get("failures", 0))
            errors, skips = int(suite.get("errors", 0)), int(suite.get("skipped", 0))
            failed += fails + errors
            skipped += skips
            passed += tests - fails - errors - skips
        return passed, failed, skipped
    m = re.findall(r"Tests: succeeded (\d+), failed (\d+), canceled (\d+), ignored (\d+)", log)
    if m:
        ok, bad, canceled, ignored = map(int, m[-1])
        return ok, bad, canceled + ignored
    return 0, 0, 0


def critical_path(todo: List[Part]) -> Dict[str, float]:
    """Each part's expected seconds plus the longest chain of parts that wait for it: the order
    to start them in, so the Scala tests (which Spark's suites wait for) start early."""
    waiting = {p.name: [q for q in todo if p.name in q.after] for p in todo}
    memo: Dict[str, float] = {}

    def path(p: Part) -> float:
        if p.name not in memo:
            memo[p.name] = p.seconds + max((path(q) for q in waiting[p.name]), default=0.0)
        return memo[p.name]

    return {p.name: path(p) for p in todo}


class Scheduler:
    """Runs parts, ``workers`` at a time, the longest critical path first once their
    dependencies end."""

    def __init__(self, todo: List[Part], workers: int):
        priority = critical_path(todo)
        self.todo = sorted(todo, key=lambda p: -priority[p.name])
        self.workers = workers
        self.done: Dict[str, Outcome] = {}
        # Dependencies outside this run (--only) count as met.
        self.waits_for = {p.name: [a for a in p.after if a in priority] for p in todo}
        self.lock = threading.Condition()
        self.start = time.monotonic()

    def _next(self) -> Optional[Part]:
        with self.lock:
            while self.todo:
                ready = [p for p in self.todo
                         if all(a in self.done for a in self.waits_for[p.name])]
                if ready:
                    self.todo.remove(ready[0])
                    return ready[0]
                self.lock.wait()
            return None

    def _worker(self) -> None:
        while True:
            part = self._next()
            if part is None:
                return
            failed = [a for a in self.waits_for[part.name] if self.done[a].returncode != 0]
            if failed:  # its input is missing: fail it without running it
                print(f"{part.name}: not run, {', '.join(failed)} failed", flush=True)
                outcome = Outcome(part, 1, 0.0, failed=1)
            else:
                outcome = run_part(part, self.start)
            with self.lock:
                self.done[part.name] = outcome
                self.lock.notify_all()

    def run(self) -> List[Outcome]:
        threads = [threading.Thread(target=self._worker) for _ in range(self.workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return list(self.done.values())


def run_part(part: Part, t0: float) -> Outcome:
    log_path = LOGS / f"{part.name}.log"
    stamp = lambda: f"{(time.monotonic() - t0) / 60:5.1f} min"  # noqa: E731
    print(f"[{stamp()}] {part.name}: started ({' '.join(part.command[:6])} ...)", flush=True)
    start = time.monotonic()
    with open(log_path, "w") as log:
        # A process group of its own, so that stopping the run stops the part's JVMs too.
        proc = subprocess.Popen(part.command, cwd=ROOT, env=dict(os.environ, **part.env),
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        RUNNING.add(proc)
        code = proc.wait()
        RUNNING.discard(proc)
    seconds = time.monotonic() - start
    if code == 5 and part.selective:
        code = 0  # pytest found no test: the selection given left none in this shard
    text = log_path.read_text(errors="replace")
    passed, failed, skipped = summary_of(part, text)
    outcome = Outcome(part, code, seconds, passed, failed, skipped)
    lines = text.splitlines()
    shown = lines if code != 0 else lines[-25:]
    verdict = "ok" if code == 0 else f"FAILED (exit {code})"
    print(f"[{stamp()}] {part.name}: {verdict} in {seconds / 60:.1f} min "
          f"({passed} passed, {failed} failed, {skipped} skipped); log {log_path}", flush=True)
    print("\n".join(f"  {part.name} | {ln}" for ln in shown), flush=True)
    return outcome


#: The parts' processes now running (stopped with the run: see stop_parts).
RUNNING: Set[subprocess.Popen] = set()


def stop_parts(signum: int, _frame: object) -> None:
    """Stops every running part's process group, then the run, on SIGINT or SIGTERM."""
    for proc in list(RUNNING):
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    os._exit(128 + signum)


def report(outcomes: List[Outcome], wall: float) -> bool:
    print("\n== test parts (minutes; parts ran side by side) ==")
    print(f"{'part':<14} {'minutes':>8}  {'passed':>6} {'failed':>6} {'skipped':>7}  result")
    for o in sorted(outcomes, key=lambda o: -o.seconds):
        print(f"{o.part.name:<14} {o.seconds / 60:8.1f}  {o.passed:6d} {o.failed:6d} "
              f"{o.skipped:7d}  {'ok' if o.returncode == 0 else 'FAILED'}")
    print(f"{'wall clock':<14} {wall / 60:8.1f}")
    ok = all(o.returncode == 0 for o in outcomes)
    passed, failed = sum(o.passed for o in outcomes), sum(o.failed for o in outcomes)
    skipped = sum(o.skipped for o in outcomes)
    # Failed parts with no test counted (a build error) still count as a failure.
    failed += sum(1 for o in outcomes if o.returncode != 0 and o.failed == 0)
    print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
    return ok


def measured_file_seconds() -> Dict[str, float]:
    """Seconds per test file in the last run's JUnit reports of the differential suite: what
    FILE_SECONDS should say (``--file-seconds`` prints it)."""
    seconds: Dict[str, float] = {}
    for report in sorted(LOGS.glob("pytest-*.xml")):
        for case in ET.parse(report).getroot().iter("testcase"):
            name = case.get("classname", "").split(".")[-1] + ".py"
            seconds[name] = seconds.get(name, 0.0) + float(case.get("time", 0))
    return {name: round(t) for name, t in sorted(seconds.items())}


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true",
                   help="the contributors' loop (the generated evaluator only)")
    p.add_argument("--workers", type=int, default=int(os.environ.get("FASTWINDOW_CI_WORKERS", 2)))
    p.add_argument("--only", default="", help="comma-separated part names")
    p.add_argument("--list", action="store_true", help="print the parts and exit")
    p.add_argument("--file-seconds", action="store_true",
                   help="print the seconds per test file of the last run (for FILE_SECONDS)")
    # Anything else is for pytest (e.g. -k ranking): then only the differential suite's shards
    # run, unless --only names parts.
    args, pytest_args = p.parse_known_args(argv)
    if args.file_seconds:
        print(measured_file_seconds())
        return 0
    todo = parts(args.quick, pytest_args)
    if args.only or pytest_args:
        names = set(args.only.split(",")) if args.only else {
            t.name for t in todo if t.name.startswith("pytest-")}
        unknown = names - {t.name for t in todo}
        if unknown:
            p.error(f"unknown part(s) {sorted(unknown)}; parts: {[t.name for t in todo]}")
        todo = [t for t in todo if t.name in names]
    if args.list:
        for t in todo:
            print(f"{t.name:<14} ~{t.seconds / 60:4.1f} min  {' '.join(t.command)}")
        return 0
    LOGS.mkdir(parents=True, exist_ok=True)
    # A wheel left by an earlier run holds that run's code.
    shutil.rmtree(WHEEL_DIR, ignore_errors=True)
    start = time.monotonic()
    signal.signal(signal.SIGINT, stop_parts)
    signal.signal(signal.SIGTERM, stop_parts)
    outcomes = Scheduler(todo, max(1, args.workers)).run()
    return 0 if report(outcomes, time.monotonic() - start) else 1


if __name__ == "__main__":
    raise SystemExit(main())
