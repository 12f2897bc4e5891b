"""What turning columnar batches into rows costs below a window, measured in one session.

    python benchmarks/row_conversion.py --data DIR.parquet [--comet] [--repeat 5]

fastwindow's operators read rows. Below them, a columnar child (Spark's vectorized Parquet scan,
Comet's scan and shuffle) goes through a ColumnarToRow node. This script times, interleaved
round by round in one session (AQE off, so each plan is fixed), for each input:

- ``batches``: the columnar node below the conversion, its batches counted (no value read);
- ``rows``: the same input through the conversion, its rows counted (every value read and
  written into an UnsafeRow, as a window's input is);
- ``window``: a window over the same input end to end into the no-op sink, with fastwindow.

``rows - batches`` is what the conversion costs; its share of ``window`` bounds what a window
reading the vectors directly could save. Inputs: Spark's vectorized scan, and with ``--comet``
(pyspark 4.1, Comet 1.2.0) Comet's scan and Comet's shuffle by the window's key. ``--data`` is a
bench shape's Parquet (``python -m fastwindow bench`` writes them under ``OUT/data``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any, Callable, Dict, List

from fastwindow import configure
from fastwindow._comet import comet_confs, comet_jar

WINDOW = "avg(x) OVER (PARTITION BY p ORDER BY o ROWS BETWEEN 9 PRECEDING AND CURRENT ROW)"


def nodes(plan: Any) -> List[Any]:
    """The plan's nodes, root first (through py4j)."""
    out, todo = [], [plan]
    while todo:
        node = todo.pop(0)
        out.append(node)
        children = node.children()
        todo.extend(children.apply(i) for i in range(children.size()))
    return out


def conversion_timers(df: Any) -> Dict[str, Callable[[], None]]:
    """Timers for the batches of the columnar node under `df`'s conversion, and for its rows."""
    plan = df._jdf.queryExecution().executedPlan()
    columnar = next(n for n in nodes(plan) if n.supportsColumnar())
    if "ColumnarToRow" not in "".join(n.nodeName() for n in nodes(plan)):
        raise SystemExit(f"no conversion to rows in:\n{plan.treeString()}")
    return {"batches": lambda: columnar.executeColumnar().count(),
            "rows": lambda: plan.execute().count()}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="a bench shape's Parquet directory")
    p.add_argument("--comet", action="store_true", help="also Comet's scan and shuffle (4.1)")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--partitions", type=int, default=8)
    args = p.parse_args()

    from pyspark.sql import SparkSession
    builder = (SparkSession.builder.master("local[2]").appName("row-conversion")
               .config("spark.driver.memory", "4g")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.adaptive.enabled", "false")
               .config("spark.sql.shuffle.partitions", str(args.partitions)))
    if args.comet:
        for key, value in comet_confs(comet_jar()).items():
            builder = builder.config(key, value)
    spark = configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        return measure(spark, args)
    finally:
        spark.stop()


def measure(spark: Any, args: Any) -> int:
    def inputs(comet: bool) -> Dict[str, Any]:
        spark.conf.set("spark.comet.enabled", str(comet).lower())
        scan = spark.read.parquet(args.data)
        found = {f"{'Comet' if comet else 'Spark'}'s scan": scan}
        if comet:
            found["Comet's shuffle by key"] = scan.repartition(args.partitions, "p")
        return found

    cases: Dict[str, Dict[str, Callable[[], None]]] = {}
    for comet in ([False, True] if args.comet else [False]):
        for name, df in inputs(comet).items():
            timers = conversion_timers(df)
            window = df.selectExpr("*", f"{WINDOW} AS w").write.format("noop").mode("overwrite")
            timers["window"] = window.save
            cases[name] = {k: with_comet(spark, comet, t) for k, t in timers.items()}
    times: Dict[str, Dict[str, List[float]]] = {c: {k: [] for k in t} for c, t in cases.items()}
    for r in range(args.repeat + 1):  # the first round warms up
        for case, timers in cases.items():
            for kind, timer in timers.items():
                start = time.perf_counter()
                timer()
                if r:
                    times[case][kind].append(time.perf_counter() - start)
    print(f"Command: `python benchmarks/row_conversion.py {' '.join(sys.argv[1:])}`  ")
    print(f"Spark {spark.version}, rows of {args.data}, medians of {args.repeat} interleaved "
          "runs (s)\n")
    print("| input | batches | rows | conversion (rows - batches) | window, end to end | "
          "conversion / window |")
    print("|---|---|---|---|---|---|")
    for case, kinds in times.items():
        m = {k: statistics.median(v) for k, v in kinds.items()}
        conversion = m["rows"] - m["batches"]
        print(f"| {case} | {m['batches']:.3f} | {m['rows']:.3f} | {conversion:.3f} | "
              f"{m['window']:.3f} | {100 * conversion / m['window']:.0f}% |")
    return 0


def with_comet(spark: Any, comet: bool, timer: Callable[[], None]) -> Callable[[], None]:
    """`timer` run with Comet switched on or off for the session (the plans are already fixed)."""
    def run() -> None:
        spark.conf.set("spark.comet.enabled", str(comet).lower())
        timer()
    return run


if __name__ == "__main__":
    sys.exit(main())
