"""Buffered partitions under memory pressure, against Spark.

Functions that need their whole partition (whole-partition and shrinking frames, percent_rank,
cume_dist, ntile, IGNORE NULLS, leads past the waiting-row limit) buffer the partition's rows in
Spark's spillable window buffer. Here Spark's own thresholds force that buffer to spill after a
few hundred rows (``spark.sql.windowExec.buffer.spill.threshold``), so every buffered frame kind
runs its spill path (on the generated evaluator); results must still be Spark's and the operator must
report the spill. Spark's answer is computed without forced spilling: its frames re-read a
spilled buffer once per row (one read-ahead buffer per spill file each time), which runs the
test JVM out of heap. A task that fails mid-partition must leave no execution memory behind.
"""

from __future__ import annotations

import pytest

import fastwindow
from helpers import assert_rows_equal, run, session_confs

#: Runs on the generated evaluator only (tests/conftest.py): the interpreted twin adds nothing.
pytestmark = pytest.mark.generated_only(
    "the subject is the spillable buffer and memory accounting, the same Scala on both "
    "evaluators.")

HASH_WINDOW_KEY = "spark.fastwindow.hashWindow.enabled"
FORCE_SPILL = {
    "spark.sql.windowExec.buffer.in.memory.threshold": "100",
    "spark.sql.windowExec.buffer.spill.threshold": "300",
}

BUFFERED = {
    "whole": "sum(v) over (partition by p)",
    "whole_range_string": "max(s) over (partition by p order by k range between unbounded "
                          "preceding and unbounded following)",
    "shrinking": "sum(v) over (partition by p order by o rows between current row and unbounded "
                 "following)",
    "to_end": "min(s) over (partition by p order by o rows between 3 preceding and unbounded "
              "following)",
    "percent_rank": "percent_rank() over (partition by p order by k)",
    "cume_dist": "cume_dist() over (partition by p order by k)",
    "ntile": "ntile(7) over (partition by p order by o)",
    "lag_ignore_nulls": "lag(v, 2) ignore nulls over (partition by p order by o)",
    "lead_past_pending_limit": "lead(s, 50) over (partition by p order by o)",
    "range_value_offsets": "sum(v) over (partition by p order by k range between 2 preceding "
                           "and 1 following)",
    "range_peers_to_end": "max(s) over (partition by p order by k range between current row "
                          "and unbounded following)",
    "nth_value_sliding": "nth_value(s, 2) ignore nulls over (partition by p order by o rows "
                         "between 5 preceding and current row)",
    "percentile_sliding": "percentile(v, array(0.5, 0.9)) over (partition by p order by o rows "
                          "between 5 preceding and 5 following)",
    "median_whole": "median(v) over (partition by p)",
    "distinct_sliding": "count(distinct s) over (partition by p order by o rows between 20 "
                        "preceding and current row)",
}


MAX_PARTITION_BYTES = "spark.fastwindow.memory.maxPartitionBytes"


def _fastwindow_metrics(spark, query: str) -> dict:
    """Runs ``query`` and returns the metrics of its (first) FastWindow operator."""
    df = spark.sql(query)
    df.collect()
    return [r for r in fastwindow.explain(df) if r.fastwindow][0].metrics


def _force_spill(spark, on: bool) -> None:
    for key, value in FORCE_SPILL.items():
        if on:
            spark.conf.set(key, value)
        else:
            spark.conf.unset(key)


def _create_view(spark) -> None:
    spark.sql("""
        create or replace temporary view spill_t as
        select cast(id % 4 as int) as p, id as o, cast(id div 5 as int) as k,
               case when id % 7 = 0 then null else (id * 7919) % 1000 - 500 end as v,
               case when id % 3 = 0 then null else concat('s', cast((id * 31) % 211 as string)) end as s
        from range(0, 4000)
    """)


@pytest.fixture
def spilling(spark):
    _create_view(spark)
    spark.conf.set("spark.fastwindow.streaming.maxPendingRows", "16")
    # These are FastWindow's buffered partitions: whole-partition sums would run on the hash
    # window (its spill is tested below).
    spark.conf.set(HASH_WINDOW_KEY, "false")
    _force_spill(spark, True)
    yield spark
    _force_spill(spark, False)
    spark.conf.unset("spark.fastwindow.streaming.maxPendingRows")
    spark.conf.unset(HASH_WINDOW_KEY)


def _spilled_like_spark(spark, query: str):
    """Runs ``query`` with fastwindow (spilling forced) and with Spark (not forced), asserts the
    same rows, and returns fastwindow's run and its operator's metrics."""
    fast = run(spark, query, fastwindow_on=True)
    _force_spill(spark, False)
    try:
        spark_rows = run(spark, query, fastwindow_on=False).rows
    finally:
        _force_spill(spark, True)
    assert_rows_equal(fast.rows, spark_rows)
    return fast, _fastwindow_metrics(spark, query)


@pytest.mark.parametrize("name", sorted(BUFFERED))
def test_buffered_frames_spill_and_match_spark(spilling, name):
    fast, metrics = _spilled_like_spark(spilling, f"select p, o, {BUFFERED[name]} as r from spill_t")
    assert "FastWindow" in fast.plan, fast.plan
    assert metrics.get("spillSize", 0) > 0, metrics
    assert metrics.get("numBufferedPartitions", 0) == 4, metrics


def test_the_hash_window_spills_and_matches_spark(spilling):
    spilling.conf.set(HASH_WINDOW_KEY, "true")
    # Over rows shuffled by key (over a range scan it would not shuffle, nor buffer, them).
    spilling.conf.set("spark.fastwindow.keyAggregates.enabled", "false")
    try:
        fast, metrics = _spilled_like_spark(
            spilling, "select p, o, sum(v) over (partition by p) as r, "
                      "count(*) over (partition by p) as n from spill_t")
    finally:
        spilling.conf.unset("spark.fastwindow.keyAggregates.enabled")
    assert "by hash, no sort" in fast.plan and "Sort " not in fast.plan, fast.plan
    assert metrics.get("spillSize", 0) > 0 and metrics.get("numSortedTasks", 0) == 0, metrics


def _execution_memory_used(spark) -> int:
    return spark.sparkContext._jvm.org.apache.spark.sql.fastwindow.TaskMemory.executionMemoryUsed()


OVERFLOWING_SUM = ("select id, sum(case when id in ({big}) then 9223372036854775807 else id end) "
                   "over (partition by id % 2) s from range(0, 20000)")


@pytest.mark.parametrize("limit", [None, "4k"], ids=["fastwindow", "handed_over"])
def test_failing_task_releases_its_memory(spilling, limit):
    """An ANSI overflow thrown mid-partition, after the operator reserved column memory and the
    row buffer spilled, leaves no execution memory reserved in the JVM: raised by fastwindow's
    kernels, or by Spark's frames in partitions handed over (``limit``)."""
    spilling.conf.set("spark.sql.ansi.enabled", "true")
    if limit:
        spilling.conf.set(MAX_PARTITION_BYTES, limit)
    try:
        metrics = _fastwindow_metrics(spilling, OVERFLOWING_SUM.format(big="-1"))
        assert metrics.get("numHandedOverPartitions", 0) == (2 if limit else 0), metrics
        with pytest.raises(Exception, match="ARITHMETIC_OVERFLOW"):
            spilling.sql(OVERFLOWING_SUM.format(big="9000, 9002")).collect()
        assert _execution_memory_used(spilling) == 0
    finally:
        spilling.conf.unset("spark.sql.ansi.enabled")
        spilling.conf.unset(MAX_PARTITION_BYTES)


# --- Partitions whose column buffers do not fit: handed to Spark's own window evaluation --------
#
# ``spark.fastwindow.memory.maxPartitionBytes`` stands in for a memory manager that refuses the
# columns (tests/test_memory_pressure.py has the real refusal): spill_t's partitions of 1000 rows
# need more than 4 KiB of columns, so each is handed over, with its rows in the row buffer and,
# for streaming plans, some still waiting in memory. Spill is not forced here: Spark's frames
# re-read a spilled buffer once per row, which exhausts the test JVM's heap (see above).

# Not handed over: ntile keeps no per-row buffers (it needs only the row count), and
# lead_past_pending_limit streams, returning rows from the 51st on, after which its partitions
# can no longer change course (its columns stay O(frame)). A RANGE running sum over one group of
# ties streams too, but holds every row of the partition until it ends: it is handed over.
HANDED_OVER = dict({k: v for k, v in BUFFERED.items()
                    if k not in ("ntile", "lead_past_pending_limit")},
                   running_range_all_ties="sum(v) over (partition by p order by p)")


@pytest.fixture
def limited(spark):
    _create_view(spark)
    spark.conf.set("spark.fastwindow.streaming.maxPendingRows", "16")
    spark.conf.set(HASH_WINDOW_KEY, "false")  # FastWindow's partitions, as in `spilling`
    yield spark
    spark.conf.unset("spark.fastwindow.streaming.maxPendingRows")
    spark.conf.unset(HASH_WINDOW_KEY)


def _run_limited(spark, query: str, limit: str) -> dict:
    """Runs ``query`` with and without fastwindow, the former under a column memory ``limit``;
    asserts fastwindow ran it and gave Spark's rows, and returns its metrics."""
    spark_rows = run(spark, query, fastwindow_on=False).rows
    spark.conf.set(MAX_PARTITION_BYTES, limit)
    try:
        fast = run(spark, query, fastwindow_on=True)
        metrics = _fastwindow_metrics(spark, query)
    finally:
        spark.conf.unset(MAX_PARTITION_BYTES)
    assert "FastWindow" in fast.plan, fast.plan
    assert_rows_equal(fast.rows, spark_rows)
    return metrics


@pytest.mark.parametrize("name", sorted(HANDED_OVER))
def test_partitions_over_the_memory_limit_are_handed_to_spark(limited, name):
    metrics = _run_limited(limited, f"select p, o, {HANDED_OVER[name]} as r from spill_t", "4k")
    assert metrics.get("numHandedOverPartitions") == 4, metrics
    assert metrics.get("numWindowPartitions") == 4 and metrics.get("numOutputRows") == 4000, metrics


def test_only_partitions_over_the_limit_are_handed_over(spark):
    """Skewed partitions: the big ones go to Spark, the small ones stay on fastwindow's kernels,
    in the same task."""
    query = """
        select p, o,
               sum(v) over (partition by p order by o rows between current row
                            and unbounded following) as rest,
               percent_rank() over (partition by p order by o) as pr,
               avg(v) over (partition by p order by o rows between 2 preceding and 2 following) as m
        from (select case when id < 3000 then 0 when id < 3050 then 1 when id < 6050 then 2
                          else 3 + id % 40 end as p,
                     id as o, (id * 7919) % 1000 - 500 as v
              from range(0, 8000))"""
    metrics = _run_limited(spark, query, "64k")
    assert metrics.get("numHandedOverPartitions") == 2, metrics
    assert metrics.get("numBufferedPartitions") == 41, metrics


def test_a_range_over_the_limit_keeps_its_ties(spark):
    """A window spread over ranges: a range's seed is the rows before it, which Spark's evaluation
    cannot start from, so a range whose first group of ties needs more than the limit keeps the
    group (unaccounted, with a warning) instead of being handed over: 4 ranges over 8 groups of
    1,000 equal keys, each range starting with one."""
    query = """select id, sum(v) over (order by k) s, cume_dist() over (order by k) cd,
                      percent_rank() over (order by k) pr
               from (select id, id div 1000 as k, (id * 7919) % 1000 - 500 as v
                     from range(0, 8000, 1, 2))"""
    confs = {"spark.fastwindow.acrossTasks.enabled": "true", "spark.sql.shuffle.partitions": "4",
             "spark.sql.adaptive.coalescePartitions.enabled": "false"}
    with session_confs(spark, confs):
        metrics = _run_limited(spark, query, "4k")
    assert metrics.get("numRanges", 0) > 1, metrics
    assert "numHandedOverPartitions" not in metrics, metrics
