"""Memory and scale evidence: fastwindow on windows that Spark must run in one task.

Two jobs, each run in a fresh local Spark (so ``--driver-memory`` really bounds the heap), with
results checked in closed form over ``spark.range`` ids (no collect of the rows):

* ``stream``: no PARTITION BY over N rows (default 50M, one task): row_number, a running sum,
  lag and a 100-row moving average. fastwindow streams it; the peak of its column buffers and
  waiting rows is read from the operator's ``peakMemory`` metric, at N/10 and at N rows, to show
  it is flat as the partition grows 10x.
* ``buffered``: one 20M-row partition with a whole-partition sum and a shrinking frame (CURRENT
  ROW AND UNBOUNDED FOLLOWING). Both need the whole partition; Spark's window buffer is forced to
  spill (``spark.sql.windowExec.buffer.spill.threshold``) and the spill size is reported.

With ``--spark`` the same jobs also run on Spark's WindowExec (fastwindow disabled) with a time
limit, and the script records what happened (time, or the failure). Spark's shrinking frame is
quadratic, so over millions of rows it is expected to hit the limit.

    python benchmarks/memory_scale.py                       # both jobs, fastwindow only
    python benchmarks/memory_scale.py --spark --timeout 600 # also vanilla Spark
    python benchmarks/memory_scale.py --job stream --rows 5000000
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from typing import Dict, Optional

STREAM_SQL = """
select id,
       row_number() over (order by id) as rn,
       sum(id) over (order by id rows between unbounded preceding and current row) as rs,
       lag(id) over (order by id) as lg,
       avg(id) over (order by id rows between 99 preceding and current row) as ma
from range(0, {n})
"""
# Closed forms: rn = id + 1, rs = id(id+1)/2, lg = id - 1 (null at 0), ma = mean of the last
# min(id+1, 100) ids, exact in doubles at these sizes.
STREAM_CHECK = """
select count(*) as rows,
       sum(case when rn = id + 1 and rs = id * (id + 1) div 2
                 and ((id = 0 and lg is null) or lg = id - 1)
                 and ma = case when id >= 99 then cast(id as double) - 49.5d
                               else cast(id as double) / 2 end
            then 0 else 1 end) as wrong
from ({window})
"""

BUFFERED_SQL = """
select id,
       sum(id) over () as total,
       sum(id) over (order by id rows between current row and unbounded following) as suffix
from range(0, {n})
"""
# total = n(n-1)/2; suffix(id) = total - id(id-1)/2.
BUFFERED_CHECK = """
select count(*) as rows,
       sum(case when total = {n}L * ({n}L - 1) div 2
                 and suffix = total - id * (id - 1) div 2 then 0 else 1 end) as wrong
from ({window})
"""


def _run_job(job: str, rows: int, fastwindow_on: bool, driver_memory: str, spill_rows: int,
             out: "mp.Queue") -> None:
    """One job in a fresh Spark session; puts a result dict on ``out``."""
    from pyspark.sql import SparkSession

    import fastwindow

    builder = (SparkSession.builder.master("local[2]")
               .appName(f"fastwindow-memory-{job}")
               .config("spark.driver.memory", driver_memory)
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.fastwindow.enabled", str(fastwindow_on).lower()))
    if job == "buffered":
        builder = builder.config("spark.sql.windowExec.buffer.spill.threshold", str(spill_rows))
    spark = fastwindow.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    window_sql = (STREAM_SQL if job == "stream" else BUFFERED_SQL).format(n=rows)
    check_sql = (STREAM_CHECK if job == "stream" else BUFFERED_CHECK).format(window=window_sql, n=rows)
    result: Dict[str, object] = {"job": job, "rows": rows, "system": "fastwindow" if fastwindow_on
                                 else "spark", "driver_memory": driver_memory}
    try:
        df = spark.sql(check_sql)
        start = time.perf_counter()
        row = df.collect()[0]
        result["seconds"] = round(time.perf_counter() - start, 2)
        result["checked_rows"] = row["rows"]
        result["wrong_rows"] = row["wrong"]
        reports = [r for r in fastwindow.explain(df) if r.fastwindow]
        if reports:
            result["metrics"] = reports[0].metrics
        result["status"] = "ok" if row["wrong"] == 0 and row["rows"] == rows else "WRONG"
    except Exception as exc:  # noqa: BLE001 - the failure itself is the result
        result["status"] = "failed"
        result["error"] = str(exc).strip().splitlines()[0][:300]
    out.put(result)
    try:
        spark.stop()
    except Exception:  # noqa: BLE001 - a JVM that died has nothing left to stop
        pass


def run(job: str, rows: int, fastwindow_on: bool, driver_memory: str, spill_rows: int,
        timeout: Optional[float]) -> Dict[str, object]:
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=_run_job,
                       args=(job, rows, fastwindow_on, driver_memory, spill_rows, out))
    start = time.perf_counter()
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return {"job": job, "rows": rows, "system": "fastwindow" if fastwindow_on else "spark",
                "status": f"not finished after {timeout:.0f} s (stopped)"}
    if out.empty():
        return {"job": job, "rows": rows, "system": "fastwindow" if fastwindow_on else "spark",
                "status": f"process died (exit code {proc.exitcode}) after "
                          f"{time.perf_counter() - start:.0f} s"}
    return out.get()


def _mb(value: Optional[int]) -> str:
    if value is None:
        return "-"
    return f"{value / 2**20:.1f} MiB" if value >= 2**20 else f"{value / 2**10:.1f} KiB"


def describe(r: Dict[str, object]) -> str:
    metrics = r.get("metrics") or {}
    parts = [f"{r['job']:8s} {r['system']:10s} {r['rows']:>11,} rows: {r['status']}"]
    if "seconds" in r:
        parts.append(f"{r['seconds']} s")
    if metrics:
        parts.append(f"peak column/queue memory {_mb(metrics.get('peakMemory'))}")
        parts.append(f"spill {_mb(metrics.get('spillSize', 0))}")
        parts.append(f"streamed partitions {metrics.get('numStreamedPartitions', 0)}, "
                     f"buffered {metrics.get('numBufferedPartitions', 0)}")
    if "error" in r:
        parts.append(f"error: {r['error']}")
    return ", ".join(parts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--job", choices=["stream", "buffered", "all"], default="all")
    parser.add_argument("--rows", type=int, default=50_000_000, help="rows of the stream job")
    parser.add_argument("--buffered-rows", type=int, default=20_000_000)
    parser.add_argument("--driver-memory", default="1g", help="heap of the stream job")
    parser.add_argument("--buffered-driver-memory", default="3g",
                        help="heap of the buffered job (its columns hold ~40 bytes per row)")
    parser.add_argument("--spill-rows", type=int, default=1_000_000,
                        help="spark.sql.windowExec.buffer.spill.threshold of the buffered job")
    parser.add_argument("--spark", action="store_true", help="also run vanilla Spark")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per run")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)

    results = []

    def go(job, rows, on, memory):
        r = run(job, rows, on, memory, args.spill_rows, args.timeout)
        print(describe(r), flush=True)
        results.append(r)

    if args.job in ("stream", "all"):
        go("stream", args.rows // 10, True, args.driver_memory)
        go("stream", args.rows, True, args.driver_memory)
        if args.spark:
            go("stream", args.rows, False, args.driver_memory)
    if args.job in ("buffered", "all"):
        go("buffered", args.buffered_rows, True, args.buffered_driver_memory)
        if args.spark:
            go("buffered", args.buffered_rows, False, args.buffered_driver_memory)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    ok = all(r["status"] == "ok" for r in results if r["system"] == "fastwindow")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
