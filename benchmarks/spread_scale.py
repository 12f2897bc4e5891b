"""How evenly a window spreads over tasks (spark.fastwindow.acrossTasks): without PARTITION BY,
and with a PARTITION BY key that holds half of the rows (by key, and with
spark.fastwindow.acrossTasks.skewedKeys).

For each query and each count of shuffle partitions (adaptive coalescing off, so every range is a
task), runs the query into Spark's no-op sink and prints the largest task's share of the rows the
window stage read from the shuffle, as a multiple of the fair share (1 / partitions): the issue's
criterion is at most 1.3x. Then, for fastwindow and for Spark (fastwindow off: the window in one
task), the time the run would take on 8, 32 and 128 task slots: each stage's tasks, with the
times measured here, scheduled in launch order on the first free slot, one stage after the
other, plus the driver's time between stages (``fastwindow.bench_tasks``). Two cores share the
tasks measured here, so a task's time is its time beside one other; an estimate at N slots holds
only as far as the tasks scale (the shuffle's disk and network do not here). The rows are the
bench's ``none`` shape (``o`` unique, ``ts`` a timestamp every 7 s, ``v`` with NULLs), made by
``spark.range`` over as many input partitions as shuffle partitions, with ``p``: 0 for half of
the rows (drawn by hash), else one of 400,000 keys.

    python benchmarks/spread_scale.py                        # 8M rows, 8, 32 and 128 partitions
    python benchmarks/spread_scale.py --rows 1000000 --partitions 4,16 --slots 4,16
"""

from __future__ import annotations

import argparse

from pyspark.sql import SparkSession

import fastwindow
from fastwindow.bench_tasks import run_tasks

SKEWED_KEYS = "spark.fastwindow.acrossTasks.skewedKeys"

#: name -> (query, whether skewed keys are split)
QUERIES = {
    "row_number": ("SELECT *, row_number() OVER (ORDER BY o) AS r FROM t", False),
    "running_sum_lag": ("SELECT *, sum(v) OVER (ORDER BY o) AS s, lag(v) OVER (ORDER BY o) AS l "
                        "FROM t", False),
    "rank_ts": ("SELECT *, rank() OVER (ORDER BY ts) AS r FROM t", False),
    **{f"hot_key_{how}": ("SELECT *, row_number() OVER w AS r, lag(v) OVER w AS l, "
                          "sum(v) OVER w AS s FROM t WINDOW w AS (PARTITION BY p ORDER BY o)",
                          how == "split")
       for how in ("by_key", "split")},
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=8_000_000)
    p.add_argument("--partitions", default="8,32,128")
    p.add_argument("--slots", default="8,32,128")
    args = p.parse_args()
    slots = [int(x) for x in args.slots.split(",")]
    spark = fastwindow.configure(
        SparkSession.builder.master("local[2]").config("spark.driver.memory", "4g")
        .config("spark.ui.showConsoleProgress", "false")).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark.conf.set("spark.fastwindow.acrossTasks.enabled", "true")
    spark.conf.set("spark.fastwindow.acrossTasks.skewedKeys.minInputSize", "0")
    spark.conf.set("spark.sql.adaptive.coalescePartitions.enabled", "false")
    estimates = " ".join(f"{f'{n} slots s':>11s}" for n in slots)
    print(f"{'query':18s} {'partitions':>10s} {'largest task':>13s} {'x fair share':>13s} "
          f"{'system':>10s} {'wall s':>7s} {estimates}")
    for name, (sql, split) in QUERIES.items():
        spark.conf.set(SKEWED_KEYS, str(split).lower())
        for n in (int(x) for x in args.partitions.split(",")):
            spark.conf.set("spark.sql.shuffle.partitions", str(n))
            _table(spark, args.rows, n)
            for system in ("fastwindow", "spark"):
                spark.conf.set("spark.fastwindow.enabled", str(system == "fastwindow").lower())
                run = run_tasks(
                    spark, lambda: spark.sql(sql).write.format("noop").mode("overwrite").save())
                share = run.largest_task_share() or 0.0
                times = " ".join(f"{run.on_slots(k) / 1000:11.2f}" for k in slots)
                print(f"{name:18s} {n:10d} {share:13.3f} {share * n:12.2f}x {system:>10s} "
                      f"{run.wall_ms / 1000:7.2f} {times}", flush=True)
    spark.stop()


def _table(spark: SparkSession, rows: int, partitions: int) -> None:
    spark.range(0, rows, 1, partitions).selectExpr(
        "id AS o", "timestamp_seconds(1704067200 + id * 7) AS ts",
        "CASE WHEN pmod(id, 13) = 0 THEN NULL ELSE pmod(xxhash64(id, 2), 1000000) - 500000 END AS v",
        "CASE WHEN pmod(xxhash64(id, 3), 2) = 0 THEN 0 ELSE 1 + pmod(xxhash64(id, 4), 400000) END AS p",
    ).createOrReplaceTempView("t")


if __name__ == "__main__":
    main()
