"""Window partitions larger than the memory Spark gives the task, under memory pressure alone.

tests/test_spill.py forces spills with Spark's row-count thresholds and hand-overs with
``spark.fastwindow.memory.maxPartitionBytes``; here neither is set. A separate local Spark gets a
small execution memory (``spark.memory.fraction``, ~9 MB), and one window partition needs more:

- percent_rank over 250k rows: its columns (~5 MB) fit, its rows (~10 MB) do not, so the
  memory manager makes the spillable row buffer spill to grant the columns; fastwindow's kernels
  evaluate the partition.
- adding a whole-partition sum, a moving max and a moving average: the columns and the moving
  frames' state (reserved before the first result is returned) need more than the task can have,
  so the partition is handed to Spark's own window frames (over its spillable rows).

Both must give Spark's answer. Its own process, because memory settings are fixed when the JVM
starts.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import json
    import fastwindow
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master("local[1]")
               .config("spark.driver.memory", "1g")
               .config("spark.memory.fraction", "0.0125")   # ~9 MB for execution and storage
               .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "1"))
    spark = fastwindow.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    windows = {
        "columns_fit": (250_000, "percent_rank() over (order by x, id) as pr"),
        "handed_over": (250_000, '''sum(x) over () as total,
               percent_rank() over (order by x, id) as pr,
               max(x) over (order by x, id rows between 2 preceding and 2 following) as mx,
               avg(x) over (order by x, id rows between 2 preceding and 2 following) as ax'''),
    }
    check = '''select count(*) as n, sum(hash(*)) as h from (
        select id, x, {functions}
        from (select id, (id * 7919) % 100003 as x from range(0, {rows})))'''
    out = {}
    for name, (rows, functions) in windows.items():
        for on in (True, False):
            spark.conf.set("spark.fastwindow.enabled", str(on).lower())
            df = spark.sql(check.format(rows=rows, functions=functions))
            row = df.collect()[0]  # on df itself, so its plan holds the metrics
            reports = fastwindow.explain(df)
            out[(name, on)] = {
                "n": row["n"], "h": row["h"],
                "operators": sorted({r.operator for r in reports}),
                "metrics": next((r.metrics for r in reports if r.fastwindow), {}),
            }
    print("RESULT " + json.dumps({f"{name} {on}": v for (name, on), v in out.items()}))
    spark.stop()
""")


@pytest.fixture(scope="module")
def pressure_runs() -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=900)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, f"the Spark run failed:\n{done.stderr[-3000:]}"
    return json.loads(lines[-1][len("RESULT "):])


def _both(runs: dict, name: str) -> "tuple[dict, dict]":
    fast, spark = runs[f"{name} True"], runs[f"{name} False"]
    assert fast["operators"] == ["FastWindow"] and spark["operators"] == ["Window"], runs
    assert fast["n"] == spark["n"] and fast["h"] == spark["h"], runs
    return fast["metrics"], spark


def test_columns_that_fit_make_the_rows_spill(pressure_runs):
    metrics, spark = _both(pressure_runs, "columns_fit")
    assert spark["n"] == 250_000
    assert metrics.get("spillSize", 0) > 0, f"no spill under memory pressure: {metrics}"
    assert metrics.get("numBufferedPartitions") == 1, metrics
    assert "numHandedOverPartitions" not in metrics, metrics


def test_columns_that_do_not_fit_hand_the_partition_to_spark(pressure_runs):
    metrics, spark = _both(pressure_runs, "handed_over")
    assert spark["n"] == 250_000
    assert metrics.get("numHandedOverPartitions") == 1, metrics
    assert metrics.get("numOutputRows") == 250_000, metrics
    assert metrics.get("spillSize", 0) > 0, metrics
