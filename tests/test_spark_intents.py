"""What Spark's own window tests check, where they check it through Spark's own operator.

``tests/spark_suites.py`` lists the tests of Spark's suites that fail with fastwindow only because
they look for `WindowExec` (or read its private metrics) or expect a streamed window to spill;
each names the test here that checks its real intent with fastwindow running the window.
"""

from __future__ import annotations

import re

import fastwindow
import pytest
from helpers import assert_rows_equal, assert_same_as_spark, run


def _set(spark, confs):
    previous = {k: spark.conf.get(k, None) for k in confs}
    for k, v in confs.items():
        spark.conf.set(k, v)
    return previous


def _restore(spark, previous):
    for k, v in previous.items():
        if v is None:
            spark.conf.unset(k)
        else:
            spark.conf.set(k, v)


def test_window_shuffles_by_all_cluster_keys_when_required(spark):
    """SPARK-38237: with spark.sql.requireAllClusterKeysForDistribution the window's input is
    shuffled by all of its PARTITION BY keys, even when it is already clustered by some."""
    previous = _set(spark, {"spark.sql.adaptive.enabled": "false",
                            "spark.sql.requireAllClusterKeysForDistribution": "true"})
    try:
        spark.createDataFrame([("a", 1, 1), ("a", 2, 2), ("b", 1, 3), ("b", 1, 4)],
                              "key1 string, key2 int, value int") \
            .repartition("key1").createOrReplaceTempView("clustered")
        query = ("select lead(key1) over (partition by key1, key2 order by value) a, "
                 "lead(value) over (partition by key1, key2 order by value) b from clustered")
        assert_same_as_spark(spark, query)
        plan = run(spark, query, fastwindow_on=True).plan
        below_window = plan[plan.index("FastWindow"):]
        assert re.search(r"Exchange hashpartitioning\(key1#\d+, key2#\d+, \d+\), ENSURE_REQUIREMENTS",
                         below_window), plan
    finally:
        _restore(spark, previous)


def test_adaptive_replanning_keeps_the_column_order(spark):
    """SPARK-50258: after AQE re-plans a query with a window, its columns keep their order."""
    previous = _set(spark, {"spark.sql.adaptive.enabled": "true"})
    try:
        spark.createDataFrame(
            [("dotNET", 2012, 10000), ("Java", 2012, 20000), ("dotNET", 2012, 5000),
             ("dotNET", 2013, 48000), ("Java", 2013, 30000)],
            "course string, year int, earnings int").createOrReplaceTempView("course_sales")
        query = ("select earnings, course, sum(earnings) over (order by year, course) balance, "
                 "year from (select * from course_sales distribute by year)")
        rows = assert_same_as_spark(spark, query, key="balance")
        df = spark.sql(query)
        df.collect()
        assert df.columns == ["earnings", "course", "balance", "year"]
        assert all(list(r.asDict()) == df.columns for r in rows)
    finally:
        _restore(spark, previous)


TINY_BUFFER = {"spark.sql.windowExec.buffer.in.memory.threshold": "1",
               "spark.sql.windowExec.buffer.spill.threshold": "1"}


def _metrics(spark, query):
    df = spark.sql(query)
    df.collect()
    return [r for r in fastwindow.explain(df) if r.fastwindow][0].metrics


#: Tests that count the operator's metrics run on the generated evaluator alone (tests/conftest.py):
#: VERIFY would count both evaluators' runs of each task.
COUNTS_METRICS = pytest.mark.generated_only("counts the operator's metrics, which VERIFY would "
                                            "count for both evaluators' runs")


@COUNTS_METRICS
def test_spill_thresholds_apply_to_buffered_partitions(spark):
    """Spark's "Window spill with more than the inMemoryThreshold and spillThreshold" tests: a
    partition held in the window buffer spills at Spark's thresholds under fastwindow too. (The
    sum of the strings cast to doubles would run by hash, whose buffer test_hash_window covers:
    here FastWindow holds the partitions, with exactFloats.)"""
    spark.createDataFrame([(1, "1"), (2, "2"), (1, "3"), (2, "4")], "key int, value string") \
        .createOrReplaceTempView("spill_kv")
    query = "select key, sum(value) over (partition by key) s from spill_kv"
    previous = _set(spark, {**TINY_BUFFER, "spark.fastwindow.exactFloats": "true"})
    try:
        assert_same_as_spark(spark, query, key="key")
        metrics = _metrics(spark, query)
        assert metrics.get("spillSize", 0) > 0 and metrics.get("numBufferedPartitions") == 2, metrics
    finally:
        _restore(spark, previous)


@COUNTS_METRICS
def test_streamed_windows_do_not_enter_the_spillable_buffer(spark):
    """The same tests' query itself — a running sum, which fastwindow streams — holds only the
    rows of its frame and never reaches the buffer, so it does not spill: the thresholds do not
    apply to it (README, "Spark's spill thresholds"). Same results."""
    spark.createDataFrame([(1, "1"), (2, "2"), (1, "3"), (2, "4")], "key int, value string") \
        .createOrReplaceTempView("spill_kv")
    query = "select key, value, sum(value) over (partition by key order by value) s from spill_kv"
    previous = _set(spark, TINY_BUFFER)
    try:
        fast = run(spark, query, fastwindow_on=True)
        vanilla = run(spark, query, fastwindow_on=False)
        assert_rows_equal(fast.rows, vanilla.rows)
        metrics = _metrics(spark, query)
        assert metrics.get("numStreamedPartitions") == 2 and not metrics.get("spillSize"), metrics
    finally:
        _restore(spark, previous)
