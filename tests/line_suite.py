"""Runs fastwindow's tests on every other Spark line it supports, from one wheel.

    python tests/line_suite.py [--lines 3.5,4.0,4.1,4.2] [--wheel WHEEL] [-- pytest args]

1. builds the wheel the way a release is built (``pip wheel .``: one jar per Spark line), unless
   one is given;
2. for each line, a virtual environment with that line's newest pyspark from PyPI (kept in
   ``~/.cache/fastwindow/venvs`` between runs) and the wheel installed into it, so the tests use
   the installed package and its bundled jar, not the checkout;
3. runs the line's suite there (LINES: CORE_LINE_SUITE, every aggregate family over every frame
   kind and the random query generator among it, and what the line's own shims serve), on the
   generated evaluator, one line after the other.

The installed Spark (4.3) runs the whole suite in the main environment; this covers the others.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"

#: Whole-partition aggregates without shuffling the rows, by key and over all rows (OVER ()): a
#: physical rule Spark runs as an adaptive query-stage preparation rule, and a broadcast.
KEY_AGGREGATES_TESTS = [
    "test_key_aggregates.py::test_share_of_total_over_files",
    "test_key_aggregates.py::test_aggregates_over_all_rows_run_where_the_rows_are"]

#: The random query generator's queries (every family, RANGE frames of every key type); its
#: windows spread over ranges and skewed keys run on the installed line only: their code is the
#: same Scala on every line, and what of it goes through a line's shims (the range shuffle, the
#: summary job, seeds and halos) SESSION_SHIM_SUITE runs on each session shim.
RANDOM_QUERIES = "test_random_queries.py::test_random_queries"

#: Decimal sums and averages whose result does not fit its type, ANSI on and off, every frame kind.
DECIMAL_RESULTS = ["test_decimal_results.py::test_ansi_raises_where_spark_raises",
                   "test_decimal_results.py::test_nulls_where_spark_gives_nulls"]

#: What every other line runs: every aggregate family over every frame kind (the window-evaluation
#: and arithmetic shims, and each line's aggregate semantics), the random queries, fallbacks, the
#: holistic aggregates built on Spark's own classes (mode), the 4.x types (collations, skipped
#: before 4.0), the ANSI overflow errors and decimal results that do not fit their type.
#: The rest of a line's run is what its own shims serve (below); the installed line runs all of it,
#: on both evaluators. A line's unit of risk is its shims and Spark's behaviour on it, not the
#: frame algorithms, which are the same Scala everywhere.
CORE_LINE_SUITE = ["test_aggregates.py", RANDOM_QUERIES, "test_fallback.py",
                   "test_mode.py", "test_collations.py",
                   "test_interval_sums.py::test_overflow_matches_spark", *DECIMAL_RESULTS]

#: Windows spread over ranges (the range shuffle, the summary job, seeds and halo rows shipped to
#: tasks, the fold in the window's order after an overflow, ranges read block by block in order)
#: and whole-partition aggregates without shuffling the rows: physical plans built through the
#: line's session shim (ClassicShim), whose two versions (shims/spark-3.5, shims/spark-4.0+) the
#: 3.5 and 4.0 lines run this over; 4.1 and 4.2 share 4.0's and the installed line's; the
#: shuffle manager's shim (shims/spark-3.5-4.2) is the one of every line but the installed one.
SESSION_SHIM_SUITE = ["test_across_tasks.py::test_mixed_functions_two_operators",
                      "test_ranges_in_order.py",
                      "test_across_tasks.py::test_empty_and_one_row_ranges",
                      "test_across_tasks_overflow.py::test_sums_that_overflow_in_a_range_but_not_in_order",
                      *KEY_AGGREGATES_TESTS]

#: The hash operators (FastGroupLimit's top-k per group, whole-partition aggregates by hash, the
#: group sort) and their sorted paths through Spark's sorter when memory is refused.
HASH_OPERATOR_TESTS = [
    "test_group_limit.py::test_top_k_keeps_whole_rows_under_a_total_order",
    "test_group_limit.py::test_memory_refused_falls_back_to_emitting_and_sorting",
    "test_hash_window.py::test_every_declarative_aggregate_per_key",
    "test_hash_window.py::test_memory_refused_falls_back_to_sorting",
    "test_group_sort.py::test_memory_refused_falls_back_to_sparks_sort"]

#: Memory (the task's memory manager, spilling at Spark's thresholds: the row-buffer shim) and the
#: hash operators (the sorter), for the row-buffer shim that is not the installed line's
#: (shims/spark-3.5-4.0: run on 3.5).
MEMORY_AND_HASH_SUITE = ["test_memory_pressure.py", "test_spill.py", *HASH_OPERATOR_TESTS]

#: The ranking and offset functions and the entry routes that depend on the line: `enable` on a
#: live session (the line's PySpark and session shim) and spark-submit --jars with the extension
#: setting. (`configure(builder)` is how every test of the line starts its session, and the
#: --packages route's Maven layout is the same Python for every line: both run on the installed
#: line.) For the lines with a window-evaluation shim or PySpark of their own.
OWN_SHIM_SUITE = ["test_ranking.py", "test_offset.py",
                  "test_entry_routes.py::test_route_enable_live_session_without_jar",
                  "test_entry_routes.py::test_route_spark_submit_jars"]

#: Spark 3.5, the oldest line, with the most shims of its own: besides the core (run by its Scala
#: 2.13 build on the same Spark) the sliding frames' overflow, the edge inputs, DISTINCT (its
#: own parser path), collect_list, and the sketches built on Spark's classes.
THREE_FIVE_SUITE = [
    *OWN_SHIM_SUITE, *MEMORY_AND_HASH_SUITE, *SESSION_SHIM_SUITE, "test_fallback.py",
    "test_mode.py",
    "test_interval_sums.py::test_overflow_matches_spark", *DECIMAL_RESULTS,
    "test_sliding_frames.py::test_overflow_with_ansi_matches_spark",
    "test_sliding_frames.py::test_overflow_without_ansi_matches_spark",
    "test_edge_inputs.py::test_constant_keys_and_one_row_inputs",
    "test_edge_inputs.py::test_one_row_partitions_and_all_null_keys",
    "test_distinct.py::test_distinct_aggregates_over_every_frame_equal_an_independent_reference",
    "test_distinct.py::test_other_distinct_aggregates_keep_sparks_error",
    "test_distinct.py::test_collect_list_of_every_type_over_every_frame",
    "test_approx.py::test_approx_count_distinct_of_every_type_over_every_frame",
    "test_approx.py::test_percentile_approx_of_every_type_over_every_frame",
]
THREE_FIVE_2_13_SUITE = ["test_ranking.py", "test_aggregates.py", RANDOM_QUERIES]

#: Spark line (or <line>_<scala>) -> pip requirement of its pyspark, the Scala it runs, extra
#: pip requirements (pandas < 3 where that pyspark predates pandas 3). The newest release of each
#: line on PyPI. "spark_home": "maven" runs pyspark on a Spark of that Scala from Maven Central
#: (PyPI's pyspark 3.5 is the Scala 2.12 build; see maven_spark_home); "suite" is what it runs.
LINES: Dict[str, Dict[str, Any]] = {
    "3.5": {"pyspark": "pyspark==3.5.*", "scala": "2.12", "extra": "pandas<3",
            "suite": THREE_FIVE_SUITE},
    "3.5_2.13": {"pyspark": "pyspark==3.5.*", "scala": "2.13", "extra": "pandas<3",
                 "spark_home": "maven",
                 # The same sources as 3.5_2.12's jar, compiled by Scala 2.13: ranking, the
                 # aggregates over every frame kind, and random queries (every family) show the
                 # Scala build links and runs.
                 "suite": THREE_FIVE_2_13_SUITE},
    # 4.0 has the window-evaluation shim of 4.1 and a PySpark of its own; its row buffer is 3.5's
    # (shims/spark-3.5-4.0), which the 3.5 line's memory and hash tests run.
    "4.0": {"pyspark": "pyspark[connect]==4.0.*", "scala": "2.13", "extra": "pandas<3",
            "suite": CORE_LINE_SUITE + SESSION_SHIM_SUITE + OWN_SHIM_SUITE},
    # 4.1 shares its shims with 4.0 and the installed line, 4.2 all but a type getter with it.
    "4.1": {"pyspark": "pyspark[connect]==4.1.*", "scala": "2.13", "extra": "pandas",
            "suite": CORE_LINE_SUITE},
    "4.2": {"pyspark": "pyspark[connect]==4.2.*", "scala": "2.13", "extra": "pandas",
            "suite": CORE_LINE_SUITE},
    # The one line DataFusion Comet is served for: fastwindow beside it (FASTWINDOW_TEST_COMET,
    # its jar from Maven Central, cached), in 4.1's virtual environment.
    "4.1_comet": {"pyspark": "pyspark[connect]==4.1.*", "scala": "2.13", "extra": "pandas",
                  "comet": True, "suite": ["test_comet.py"]},
}

LINE_ENV = {"FASTWINDOW_TEST_CODEGEN_MODES": "CODEGEN_ONLY", "FASTWINDOW_RANDOM_QUERIES": "32"}


def support_matrix() -> str:
    """README's support matrix: the lines the build compiles (scala-src/shims/spark-lines.tsv)
    and what CI runs each on (LINES here; the installed pyspark for the line of .ci/setup)."""
    sys.path.insert(0, str(REPO / "python" / "_build_backend"))
    from spark_lines import read_lines  # the build's own table

    import pyspark

    installed = ".".join(pyspark.__version__.split(".")[:2])
    rows = ["| Spark line | Scala | jar compiled against | tested in CI on | Java | Python |",
            "|---|---|---|---|---|---|"]
    for line in read_lines():
        compiled = f"Spark {line.maven} (Maven Central)" if line.maven else "the installed pyspark"
        if line.line == installed:
            tested = f"pyspark {installed}.x: the whole suite"
        elif _suite_line(line.line, line.scala):
            if LINES[_suite_line(line.line, line.scala)].get("spark_home") == "maven":
                tested = (f"pyspark {line.line}.x from PyPI on Spark {line.maven} (Scala "
                          f"{line.scala}) from Maven Central: part of the line suite")
            else:
                tested = f"pyspark {line.line}.x from PyPI: part of the line suite"
            if any(k.split("_")[0] == line.line and spec.get("comet") for k, spec in LINES.items()):
                tested += ", and beside DataFusion Comet"
        else:
            tested = "compiled only (PyPI's pyspark of this line is built for another Scala)"
        rows.append(f"| {line.line} | {line.scala} | {compiled} | {tested} | 17 | 3.9+ |")
    return "\n".join(rows)


def _suite_line(line: str, scala: str) -> Optional[str]:
    """The LINES key that tests a build line, if any."""
    for key, spec in LINES.items():
        if key.split("_")[0] == line and spec["scala"] == scala:
            return key
    return None


def cache_dir() -> Path:
    base = os.environ.get("FASTWINDOW_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "fastwindow")
    return Path(base)


def log(msg: str) -> None:
    print(f"[line_suite] {msg}", file=sys.stderr, flush=True)


def build_wheel(out_dir: Path) -> Path:
    """The release build, as the docs give it: ``python -m build --no-isolation`` (an sdist, then
    the wheel built from it: a jar for every Spark line, compiled against the installed pyspark
    where it is the line's, which an isolated build would not see)."""
    env = dict(os.environ, FASTWINDOW_SPARK_LINES="all")
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out_dir),
                    str(REPO)], check=True, env=env, stdout=subprocess.DEVNULL)
    wheels = sorted(out_dir.glob("fastwindow-*.whl"))
    if not wheels:
        raise SystemExit(f"pip wheel wrote no fastwindow wheel into {out_dir}")
    return wheels[-1]


def line_venv(line: str, wheel: Path) -> Path:
    """A venv with the line's pyspark, the test tools and the wheel; returns its python."""
    spec = LINES[line]
    pyspark_line = line.split("_")[0]  # one venv per pyspark (3.5 and 3.5_2.13 share one)
    venv = cache_dir() / "venvs" / f"spark-{pyspark_line}_{LINES[pyspark_line]['scala']}"
    python = venv / "bin" / "python"
    if not python.exists():
        log(f"creating {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run(pip + [spec["pyspark"], "pytest", "chispa", "pyarrow", spec["extra"]],
                   check=True)
    subprocess.run(pip + ["--force-reinstall", "--no-deps", str(wheel)], check=True)
    return python


def maven_spark_home(line: str, python: Path) -> Path:
    """A Spark home for pyspark of `line` running a Spark of another Scala: the venv's pyspark
    package with the Spark release's runtime jars from Maven Central in place of its own (resolved
    by the sbt build for that line, FASTWINDOW_SPARK_LINE), built once into the cache."""
    home = cache_dir() / "spark-homes" / f"spark-{line}"
    if (home / "jars").is_dir() and all(jar.exists() for jar in (home / "jars").iterdir()):
        return home  # (a link to a jar that left sbt's cache means: resolve again)
    shutil.rmtree(home, ignore_errors=True)
    log(f"{line}: resolving Spark's runtime jars from Maven Central (sbt)")
    out = subprocess.run(["bash", str(REPO / ".ci" / "sbt"), "export Compile/dependencyClasspath"],
                         cwd=str(REPO), env=dict(os.environ, FASTWINDOW_SPARK_LINE=line),
                         check=True, capture_output=True, text=True).stdout
    classpath = [Path(p) for p in out.strip().splitlines()[-1].split(os.pathsep)]
    jars = [p for p in classpath if p.suffix == ".jar" and p.is_file()]
    if not any(p.name.startswith("spark-core_") for p in jars):
        raise SystemExit(f"sbt gave no Spark jars for {line}: {out[-2000:]}")
    package = Path(subprocess.run(
        [str(python), "-c", "import pyspark, os; print(os.path.dirname(pyspark.__file__))"],
        check=True, capture_output=True, text=True).stdout.strip())
    staging = home.with_name(home.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "jars").mkdir(parents=True)
    # Everything else is the pyspark's own: bin/ (spark-submit), python/lib/pyspark.zip (what
    # Python workers import, so they match the driver's pyspark), conf, ...
    for entry in package.iterdir():
        if entry.name != "jars":
            (staging / entry.name).symlink_to(entry)
    for jar in jars:
        (staging / "jars" / jar.name).symlink_to(jar)
    staging.rename(home)
    return home


def run_line(line: str, wheel: Path, pytest_args: List[str], report_dir: Path) -> dict:
    spec = LINES[line]
    python = line_venv(line, wheel)
    report = report_dir / f"spark-{line}.json"
    env = dict(os.environ)
    # The tests' helpers, but the package from the wheel (not python/ of the checkout).
    env["PYTHONPATH"] = str(TESTS)
    env.pop("SPARK_HOME", None)
    if spec.get("spark_home") == "maven":
        env["SPARK_HOME"] = str(maven_spark_home(line, python))
    env.update(LINE_ENV)
    if spec.get("comet"):
        env["FASTWINDOW_TEST_COMET"] = "1"
    probe = subprocess.run(
        [str(python), "-c", "import fastwindow, pyspark; print(pyspark.__version__, "
         "fastwindow.__file__, fastwindow.jar_path())"],
        env=env, capture_output=True, text=True, cwd=str(report_dir))
    if probe.returncode != 0:
        return {"line": line, "ok": False, "error": probe.stderr[-4000:]}
    pyspark_version, package, jar = probe.stdout.split()
    if str(REPO / "python") in package:
        return {"line": line, "ok": False, "error": f"fastwindow came from the checkout: {package}"}
    log(f"Spark {pyspark_version}: {jar}")
    start = time.monotonic()
    proc = subprocess.run(
        [str(python), "-m", "pytest", *[str(TESTS / t) for t in spec["suite"]],
         "-q",
         "-p", "no:cacheprovider", "-rfE", f"--junitxml={report.with_suffix('.xml')}",
         *pytest_args],
        env=env, cwd=str(report_dir), capture_output=True, text=True)
    summary = (proc.stdout.strip().splitlines() or ["(no output)"])[-1]
    return {"line": line, "spark": pyspark_version, "jar": os.path.basename(jar),
            "ok": proc.returncode == 0, "summary": summary,
            "seconds": round(time.monotonic() - start),
            "failures": [ln for ln in proc.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))],
            "output_tail": proc.stdout[-6000:] if proc.returncode else ""}


def run(lines: List[str], wheel: Optional[Path] = None, pytest_args: Optional[List[str]] = None,
        work_dir: Optional[Path] = None) -> List[dict]:
    work = Path(work_dir or tempfile.mkdtemp(prefix="fastwindow-lines-"))
    if wheel is None:
        log("building the wheel (every Spark line)")
        wheel = build_wheel(work / "dist")
    results = []
    for line in lines:
        files = LINES[line]["suite"]
        log(f"Spark {line}: setting up and running {len(files)} test files")
        result = run_line(line, wheel, pytest_args or [], work)
        log(f"Spark {line}: {result.get('summary', result.get('error'))}")
        results.append(result)
    return results


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", default=",".join(LINES),
                        help=f"comma-separated Spark lines (default: {','.join(LINES)})")
    parser.add_argument("--wheel", type=Path, help="a built fastwindow wheel to test")
    parser.add_argument("--markdown", action="store_true",
                        help="print README's support matrix and exit")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    if args.markdown:
        print(support_matrix())
        return 0
    lines = [line.strip() for line in args.lines.split(",") if line.strip()]
    unknown = [line for line in lines if line not in LINES]
    if unknown:
        parser.error(f"unknown Spark line(s) {unknown}; known: {', '.join(LINES)}")
    results = run(lines, args.wheel, args.pytest_args)
    print(json.dumps(results, indent=2))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
