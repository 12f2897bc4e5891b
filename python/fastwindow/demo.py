"""``python -m fastwindow demo``: a typical window pipeline, timed with fastwindow on and off.

The workload is an events table (``customer_id``, ``ts``, ``amount DECIMAL(12,2)``,
``amount_usd DOUBLE``, ``category`` with nulls) generated with ``spark.range`` and a query that
computes, per customer: event sequence numbers, rank/dense_rank by time, previous/next amounts,
running totals (the default RANGE frame and an explicit ROWS frame), 7-event rolling sums and
maxima (a moving ROWS frame) and whole-customer
avg/min/max/count.

The input is generated once, hash-partitioned by customer and sorted, then cached and counted, so
both timings measure the window operators (plus a cached scan) rather than data generation,
shuffles or sorts. Each side runs ``--repeat`` times after ``--warmup`` untimed runs (interleaved,
so JIT warm-up and caches favour neither side); the median is reported. Results are compared
exactly: a full checksum over every row and column of both outputs (and, for small inputs, the
sorted rows themselves). The exit code is 1 if they differ.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
from typing import Any, List, Optional, Sequence, Tuple

from ._errors import FastWindowError
from ._jar import build_info
from ._session import ENABLED_KEY, configure, explain, is_enabled
from ._version import __version__

__all__ = ["main", "QUERY", "make_events"]

QUERY = """\
SELECT *,
  row_number()    OVER w_seq AS event_seq,
  rank()          OVER w_ts  AS ts_rank,
  dense_rank()    OVER w_ts  AS ts_dense_rank,
  lag(amount)     OVER w_seq AS prev_amount,
  lead(amount)    OVER w_seq AS next_amount,
  sum(amount)     OVER w_ts  AS running_total,       -- default frame: RANGE, ties share a value
  sum(amount)     OVER w_run AS running_total_rows,  -- ROWS UNBOUNDED PRECEDING..CURRENT ROW
  sum(amount_usd) OVER w_run AS running_usd,
  sum(amount)     OVER w_7   AS rolling_7_amount,    -- moving frame: this and 6 previous events
  max(amount_usd) OVER w_7   AS rolling_7_max_usd,
  avg(amount)     OVER w_all AS customer_avg,
  min(amount)     OVER w_all AS customer_min,
  max(amount_usd) OVER w_all AS customer_max_usd,
  count(category) OVER w_all AS customer_categorised,
  count(*)        OVER w_all AS customer_events
FROM events
WINDOW
  w_seq AS (PARTITION BY customer_id ORDER BY ts, event_id),
  w_ts  AS (PARTITION BY customer_id ORDER BY ts),
  w_run AS (PARTITION BY customer_id ORDER BY ts, event_id
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
  w_7   AS (PARTITION BY customer_id ORDER BY ts, event_id
            ROWS BETWEEN 6 PRECEDING AND CURRENT ROW),
  w_all AS (PARTITION BY customer_id)"""

_CATEGORIES = ["grocery", "electronics", "travel", "dining", "fuel", "health", "apparel", "home"]


def make_events(spark: Any, rows: int, customers: int, partitions: int) -> Any:
    """The demo's events table: deterministic pseudo-random data from ``spark.range``.

    Timestamps are whole minutes over 90 days, so a customer with many events has ties (which
    RANGE frames and rank() must treat as peers); about 10% of categories are NULL.
    """
    categories = ", ".join(f"'{c}'" for c in _CATEGORIES)
    return spark.range(0, rows, 1, partitions).selectExpr(
        "id AS event_id",
        f"pmod(xxhash64(id, 1), {customers}) AS customer_id",
        "timestamp_seconds(1704067200 + pmod(xxhash64(id, 2), 129600) * 60) AS ts",
        "CAST(CAST(pmod(xxhash64(id, 3), 500000) AS DECIMAL(12, 0)) / 100 AS DECIMAL(12, 2))"
        " AS amount",
        "CAST(pmod(xxhash64(id, 3), 500000) AS DOUBLE) / 100"
        " * (1.0 + pmod(xxhash64(id, 4), 1000) / 10000.0) AS amount_usd",
        f"CASE WHEN pmod(xxhash64(id, 5), 10) = 0 THEN NULL ELSE element_at(array({categories}),"
        f" CAST(pmod(xxhash64(id, 6), {len(_CATEGORIES)}) + 1 AS INT)) END AS category",
    )


def _set_enabled(spark: Any, on: bool) -> None:
    spark.conf.set(ENABLED_KEY, "true" if on else "false")


def _timed_run(spark: Any, on: bool) -> float:
    _set_enabled(spark, on)
    start = time.perf_counter()
    # The noop sink computes every row and column (count() would let Spark prune columns).
    spark.sql(QUERY).write.format("noop").mode("overwrite").save()
    return time.perf_counter() - start


def _checksum(spark: Any, on: bool) -> Tuple[int, int, int]:
    """(rows, sum of xxhash64, sum of murmur3) over the JSON of every output row.

    Hashing each row's JSON (nulls written as null, timestamps in microseconds) makes the
    position of every value count; the sums make the checksum independent of row order.
    """
    _set_enabled(spark, on)
    df = spark.sql(QUERY)
    row = df.selectExpr(
        "to_json(struct(*), map('ignoreNullFields', 'false', "
        "'timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS')) AS j"
    ).selectExpr(
        "count(*) AS n",
        "sum(CAST(xxhash64(j) AS DECIMAL(38, 0))) AS h1",
        "sum(CAST(hash(j) AS BIGINT)) AS h2",
    ).first()
    return int(row["n"]), int(row["h1"] or 0), int(row["h2"] or 0)


def _sorted_rows(spark: Any, on: bool) -> List[Any]:
    _set_enabled(spark, on)
    return sorted(spark.sql(QUERY).collect(), key=lambda r: (r["customer_id"], r["event_id"]))


def _plan(df: Any) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        df.explain()
    return buf.getvalue().rstrip()


def _omit_cached_subplans(plan: str) -> str:
    """Drops the (long, irrelevant) plan that built the cached input below InMemoryRelation."""
    out: List[str] = []
    skip_deeper_than: Optional[int] = None
    for line in plan.splitlines():
        depth = len(line) - len(line.lstrip(" +-:"))
        if skip_deeper_than is not None:
            if depth > skip_deeper_than and line.strip():
                continue
            skip_deeper_than = None
        out.append(line)
        if "InMemoryRelation" in line:
            skip_deeper_than = depth
            out.append(" " * (depth + 6) + "(plan of the cached input omitted)")
    return "\n".join(out)


def _indent(text: str, width: Optional[int]) -> str:
    out = []
    for line in text.splitlines():
        if width is not None and len(line) > width:
            line = line[: width - 1] + "…"
        out.append("  " + line)
    return "\n".join(out)


def _fmt_s(seconds: float) -> str:
    return f"{seconds:.2f} s"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m fastwindow demo",
        description="Run a typical window pipeline on generated data with fastwindow on and "
                    "off, compare the results exactly and report both timings.",
    )
    parser.add_argument("--rows", type=int, default=2_000_000,
                        help="events to generate (default: 2,000,000)")
    parser.add_argument("--customers", type=int, default=None,
                        help="distinct customers = window partitions (default: rows / 100)")
    parser.add_argument("--partitions", type=int, default=4,
                        help="Spark partitions of the input and spark.sql.shuffle.partitions "
                             "(default: 4)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed runs per side; the median is reported (default: 3)")
    parser.add_argument("--warmup", type=int, default=1,
                        help="untimed runs per side first (default: 1)")
    parser.add_argument("--master", default="local[2]", help="Spark master (default: local[2])")
    parser.add_argument("--driver-memory", default="4g", help="spark.driver.memory (default: 4g)")
    parser.add_argument("--full-plan", action="store_true",
                        help="print the physical plan without shortening long lines")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the demo; returns 0, or 1 when fastwindow's results differ from Spark's."""
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    if args.rows < 1 or args.repeat < 1 or args.partitions < 1 or args.warmup < 0:
        print("demo: --rows, --repeat and --partitions must be >= 1, --warmup >= 0",
              file=sys.stderr)
        return 2
    customers = args.customers or max(1, args.rows // 100)

    from pyspark.sql import SparkSession

    print(f"fastwindow demo: starting Spark ({args.master}, driver memory "
          f"{args.driver_memory})...", flush=True)
    builder = (
        SparkSession.builder.master(args.master)
        .appName("fastwindow-demo")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.sql.shuffle.partitions", str(args.partitions))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    spark = configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        return _run(spark, args, customers)
    finally:
        spark.stop()


def _run(spark: Any, args: argparse.Namespace, customers: int) -> int:
    built = build_info().get("spark.version", "?")
    print(f"fastwindow {__version__} (jar built for Spark {built}) on Spark {spark.version}, "
          f"{args.master}; fastwindow enabled in this session: {is_enabled(spark)}")

    start = time.perf_counter()
    events = (
        make_events(spark, args.rows, customers, args.partitions)
        .repartition(args.partitions, "customer_id")
        .sortWithinPartitions("customer_id", "ts", "event_id")
        .cache()
    )
    n = events.count()
    events.createOrReplaceTempView("events")
    print(f"input: {n:,} events of {customers:,} customers in {args.partitions} partitions "
          f"(by customer_id, sorted, cached) built in {_fmt_s(time.perf_counter() - start)}")
    print("\nquery:\n" + _indent(QUERY, None))

    _set_enabled(spark, True)
    fast_df = spark.sql(QUERY)
    plan = _plan(fast_df)
    print("\nphysical plan with fastwindow on:")
    shown = plan if args.full_plan else _omit_cached_subplans(plan)
    print(_indent(shown, None if args.full_plan else 150))
    has_fast_node = "FastWindow" in plan

    print("\nwindow operators (fastwindow.explain):")
    try:
        reports = explain(fast_df)
        for report in reports or []:
            print(_indent(str(report), None if args.full_plan else 150))
        if not reports:
            print("  (none reported)")
    except (FastWindowError, Exception) as exc:  # the report is informative only
        print(f"  (not available: {type(exc).__name__}: {str(exc).splitlines()[0][:200]})")
    if not has_fast_node:
        print("\nnote: no FastWindow operator in the plan: every window stays on Spark's "
              "Window, so both timings below measure Spark.")

    on_times: List[float] = []
    off_times: List[float] = []
    total = args.warmup + args.repeat
    print(f"\ntiming: {args.warmup} warm-up + {args.repeat} timed run(s) per side, "
          "interleaved ...", flush=True)
    for i in range(total):
        t_on = _timed_run(spark, True)
        t_off = _timed_run(spark, False)
        timed = i >= args.warmup
        label = f"run {i - args.warmup + 1}" if timed else "warm-up"
        print(f"  {label:>8}: fastwindow on {_fmt_s(t_on)}, off {_fmt_s(t_off)}", flush=True)
        if timed:
            on_times.append(t_on)
            off_times.append(t_off)
    med_on = statistics.median(on_times)
    med_off = statistics.median(off_times)

    print("\nchecking results ...", flush=True)
    sum_on = _checksum(spark, True)
    sum_off = _checksum(spark, False)
    equal = sum_on == sum_off
    how = f"checksum of all {sum_on[0]:,} rows x every column"
    if equal and args.rows <= 200_000:
        equal = _sorted_rows(spark, True) == _sorted_rows(spark, False)
        how += " and sorted rows"
    _set_enabled(spark, True)

    print(f"\nmedian of {args.repeat}:")
    print(f"  fastwindow on : {_fmt_s(med_on)}")
    print(f"  fastwindow off: {_fmt_s(med_off)}  (Spark's Window)")
    ratio = med_off / med_on if med_on > 0 else float("inf")
    print(f"  speedup       : {ratio:.2f}x" + ("" if has_fast_node else "  (no FastWindow node)"))
    if equal:
        print(f"results: identical ({how})")
        return 0
    print(f"results: DIFFERENT ({how}): on={sum_on} off={sum_off}", file=sys.stderr)
    print("results: DIFFERENT — fastwindow's output does not match Spark's")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
