"""A partition larger than the memory Spark gives the task spills under memory pressure alone.

tests/test_spill.py forces spills with Spark's row-count thresholds; here no threshold is set.
A separate local Spark gets a tiny execution memory (``spark.memory.fraction``), and one window
partition of 1M rows needs several times that: the spillable row buffer must be made to spill by
the memory manager (the column buffers' reservations push it too), and the results must match
Spark's, which spills the same way. Its own process, because memory settings are fixed when the
JVM starts.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

ROWS = 1_000_000

SCRIPT = textwrap.dedent("""
    import json
    import fastwindow
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master("local[1]")
               .config("spark.driver.memory", "1g")
               .config("spark.memory.fraction", "0.02")   # ~14 MB for execution and storage
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "1"))
    spark = fastwindow.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    # One partition; buffered kinds: a whole-partition sum, percent_rank, a frame reaching ahead.
    window = '''
        select id, x,
               sum(x) over () as total,
               percent_rank() over (order by x, id) as pr,
               max(x) over (order by x, id rows between 2 preceding and 2 following) as mx
        from (select id, (id * 7919) % 100003 as x from range(0, {rows}))'''
    check = '''select count(*) as n, sum(hash(id, x, total, pr, mx)) as h from ({{window}})'''
    out = {{}}
    for on in (True, False):
        spark.conf.set("spark.fastwindow.enabled", str(on).lower())
        df = spark.sql(check.format(window=window))
        row = df.collect()[0]  # on df itself, so its plan holds the metrics
        reports = fastwindow.explain(df)
        out["fastwindow" if on else "spark"] = {{
            "n": row["n"], "h": row["h"],
            "operators": sorted({{r.operator for r in reports}}),
            "metrics": next((r.metrics for r in reports if r.fastwindow), {{}}),
        }}
    print("RESULT " + json.dumps(out))
    spark.stop()
""").format(rows=ROWS)


def test_partition_larger_than_task_memory_spills_and_matches_spark():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, f"the Spark run failed:\n{done.stderr[-3000:]}"
    result = json.loads(lines[-1][len("RESULT "):])
    fast, spark = result["fastwindow"], result["spark"]
    assert fast["operators"] == ["FastWindow"] and spark["operators"] == ["Window"], result
    assert fast["n"] == spark["n"] == ROWS
    assert fast["h"] == spark["h"], result
    metrics = fast["metrics"]
    assert metrics.get("spillSize", 0) > 0, f"no spill under memory pressure: {metrics}"
    assert metrics.get("numBufferedPartitions") == 1, metrics
