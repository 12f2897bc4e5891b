"""``python -m fastwindow bench``: fastwindow vs Spark (default frames and segment tree) vs DuckDB.

For every (data shape, workload) the systems run interleaved — warm-up, then ``--repeat`` rounds
of one run per system — and the suite reports the median with min and max. Two timings:

* **window-only**: the input is read from Parquet, partitioned by the PARTITION BY key, sorted and
  cached first; the measured plan is checked to contain no Exchange or Sort above the cached scan,
  so only the window operator (plus the cached scan and a no-op sink) is timed;
* **end-to-end** (not in ``--quick``): the same query straight from the Parquet files, shuffle and
  sort included.

With ``--systems ...,shuffle_only`` (end-to-end mode) a reference runs too: the columns the query
reads, shuffled by its PARTITION BY key (without PARTITION BY: into ranges of its ORDER BY key,
unsorted) into the same sink, without the window. Every plan that shuffles every row pays at
least that, so Spark's time over it (the **ceiling**) is the most any window operator running
after the shuffle could gain on this machine. For a top-k, whose partial
limit runs before the shuffle, the reference is the columns read alone (no shuffle), so its
ceiling is the most any plan of the query could gain here.

DuckDB (when installed) runs the same SQL over a table loaded from the same Parquet files, so its
time includes its own sort: it is a single-node reference, not a like-for-like operator timing.

Before a speedup is reported, the systems' results are compared: per output column the row count
of non-nulls, the sum of xxhash64 of the values (exact columns) and the sum of the values (float
columns, relative tolerance 1e-9 — float sums over sliding frames may differ in the last bits).
The operator that actually ran each workload with fastwindow enabled is read from the plan, so a
fallback to Spark is shown as such and never as a speedup.

Outputs in ``--out`` (default ``bench-results/``): ``results.json`` (raw runs, machine, load),
``results.md`` (ratios) and ``speedup.png`` / ``window_size.png`` (matplotlib, when installed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import List, Optional, Sequence

from ._comet import COMET_SPARK_LINE, comet_confs, comet_jar
from ._session import configure
# The suite's parts live in bench_workloads (shapes, workloads), bench_queries (their SQL, the
# checksums), bench_data (generated input), bench_systems, bench_runner (timing) and bench_results
# (tables, charts); their public names stay reachable from this module.
from .bench_queries import FLOAT_TOLERANCE, query_sql, shuffle_only_sql  # noqa: F401
from .bench_results import (REGRESSION_BELOW, Case, SystemResult, charts, machine_info, markdown,
                            regressions)
from .bench_runner import Runner, TimeLimitExceeded  # noqa: F401
from .bench_systems import (EXACT_FLOATS_KEY, GROUP_SORT_KEY, OTHER_SYSTEMS,  # noqa: F401
                            SEGMENT_TREE_KEY, SHUFFLE_ONLY, SPARK_SYSTEMS, SPLIT_MIXED_KEY, System,
                            uses_comet)
from .bench_workloads import (MODES, QUICK_WORKLOADS, SHAPES, WORKLOADS, Shape,  # noqa: F401
                              Workload)

__all__ = ["main", "WORKLOADS", "SHAPES"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m fastwindow bench", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="a short run (< 2 minutes): small partitions, a subset of workloads, "
                        "window-only time")
    p.add_argument("--rows", type=int, help="rows per shape (default 1,000,000; quick 200,000)")
    p.add_argument("--shapes", default=None,
                   help=f"comma-separated shapes among {', '.join(SHAPES)} (default all; quick small)")
    p.add_argument("--workloads", default=None,
                   help="comma-separated workload names or groups (default all; quick a subset)")
    p.add_argument("--systems", default="fastwindow,spark,spark_segtree,duckdb",
                   help="comma-separated systems to compare, among fastwindow (its "
                        "defaults), fastwindow_one_task (spark.fastwindow.acrossTasks.enabled "
                        "off), fastwindow_spread (the same defaults, as earlier runs named them), "
                        "fastwindow_spread_sorted (and spark.fastwindow.acrossTasks."
                        "rangesInOrder off), "
                        "fastwindow_skewed (and spark.fastwindow.acrossTasks.skewedKeys on), "
                        "fastwindow_split (spark.fastwindow.streaming.splitMixed on), "
                        "fastwindow_exact (spark.fastwindow.exactFloats on), fastwindow_sorted "
                        "(spark.fastwindow.groupSort.enabled off), spark, "
                        "spark_segtree, duckdb, shuffle_only (end to end: the input shuffled "
                        "by the window's key without the window, or for a top-k read alone: "
                        "Spark's ceiling), and beside DataFusion Comet (Spark 4.1; the session "
                        "then starts with Comet, off for the other systems): comet (fastwindow "
                        "off), comet_fastwindow (spark.fastwindow.besideComet=AUTO: the "
                        "reference of the ratios) and comet_fastwindow_all (TAKE_ALL)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per system (median reported)")
    p.add_argument("--max-seconds", type=float, default=60.0,
                   help="a Spark run taking longer is cancelled and reported as such; a warm-up "
                        "taking over half of it is the only run of that system")
    p.add_argument("--modes", default=None,
                   help="comma-separated modes among window-only, end-to-end (default both; "
                        "quick window-only)")
    p.add_argument("--partitions", type=int, default=2, help="Spark partitions of the input")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--driver-memory", default="6g")
    p.add_argument("--out", default="bench-results", help="output directory")
    p.add_argument("--list", action="store_true", help="list workloads and shapes, then exit")
    p.add_argument("--replot", metavar="DIR",
                   help="redraw the charts and markdown of an earlier run's DIR/results.json")
    return p


def _select_workloads(spec: Optional[str], quick: bool) -> List[Workload]:
    if spec is None:
        names = QUICK_WORKLOADS if quick else [w.name for w in WORKLOADS]
        return [w for w in WORKLOADS if w.name in names]
    wanted = {s.strip() for s in spec.split(",") if s.strip()}
    chosen = [w for w in WORKLOADS if w.name in wanted or w.group in wanted]
    unknown = wanted - {w.name for w in chosen} - {w.group for w in chosen}
    if unknown:
        raise SystemExit(f"bench: unknown workloads {sorted(unknown)}; see --list")
    return chosen


def replot(out: Path) -> int:
    """Rewrites results.md and the charts of an earlier run from its results.json."""
    data = json.loads((out / "results.json").read_text())
    cases = []
    for c in data["cases"]:
        systems = {n: SystemResult(**r) for n, r in c.pop("systems").items()}
        cases.append(Case(**c, systems=systems))
    (out / "results.md").write_text(markdown(cases, data["machine"], data["command"]))
    charts(cases, out)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    if args.list:
        for w in WORKLOADS:
            print(f"{w.name:22s} {w.group:10s} {'; '.join(w.expressions)}")
        for s in SHAPES.values():
            print(f"shape {s.name:6s} {s.description}")
        return 0
    if args.replot:
        return replot(Path(args.replot))
    rows = args.rows or (200_000 if args.quick else 1_000_000)
    shape_names = (args.shapes or ("small" if args.quick else ",".join(SHAPES))).split(",")
    unknown = [s for s in shape_names if s not in SHAPES]
    if unknown or rows < 1 or args.repeat < 1:
        print(f"bench: bad arguments (unknown shapes {unknown}, rows {rows}, repeat {args.repeat})",
              file=sys.stderr)
        return 2
    workloads = _select_workloads(args.workloads, args.quick)
    args.modes = (args.modes or ("window-only" if args.quick else ",".join(MODES))).split(",")
    if any(m not in MODES for m in args.modes):
        print(f"bench: unknown modes {args.modes}; choose among {', '.join(MODES)}", file=sys.stderr)
        return 2
    args.systems = [s.strip() for s in args.systems.split(",")]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    duck = None
    if "duckdb" in args.systems:
        try:
            import duckdb
            duck = duckdb.connect()
            duck.execute(f"SET threads TO {os.cpu_count() or 1}")
        except ImportError:
            print("note: duckdb is not installed; skipping it (pip install 'fastwindow[bench]')")

    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(args.master).appName("fastwindow-bench")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.sql.shuffle.partitions", str(args.partitions))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC"))
    if uses_comet(args.systems):
        import pyspark
        if not pyspark.__version__.startswith(COMET_SPARK_LINE + "."):
            print(f"bench: the Comet systems need pyspark {COMET_SPARK_LINE} (Comet's one Spark "
                  f"line on Maven Central), not {pyspark.__version__}", file=sys.stderr)
            return 2
        for key, value in comet_confs(comet_jar()).items():
            builder = builder.config(key, value)
    spark = configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    command = "python -m fastwindow bench " + " ".join(argv if argv is not None else sys.argv[1:])
    try:
        info = machine_info(spark)
        runner = Runner(spark, args, duck)
        print(f"fastwindow bench: {rows:,} rows per shape, shapes {shape_names}, "
              f"{len(workloads)} workloads, systems {[s.name for s in runner.systems]}"
              f"{' + duckdb' if duck else ''}, {args.repeat} timed runs each", flush=True)
        for name in shape_names:
            runner.run_shape(SHAPES[name], rows, workloads)
        info["load_average_after"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    finally:
        spark.stop()
        if duck is not None:
            duck.close()
    cases = runner.cases
    (out / "results.json").write_text(json.dumps(
        {"command": command, "machine": info, "float_tolerance": FLOAT_TOLERANCE,
         "cases": [asdict(c) for c in cases]}, indent=2))
    (out / "results.md").write_text(markdown(cases, info, command))
    written = charts(cases, out)
    print(f"\nwrote {out / 'results.json'}, {out / 'results.md'}"
          + "".join(f", {out / w}" for w in written))
    slower = regressions(cases)
    print(f"\nregressions (below {REGRESSION_BELOW}x Spark, or Comet alone): "
          + ("none" if not slower else "\n  " + "\n  ".join(slower)))
    disagreeing = [c for c in cases if c.results_agree is False]
    if disagreeing:
        print(f"bench: {len(disagreeing)} case(s) where the systems' results differ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
