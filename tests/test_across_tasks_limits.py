"""The internal limits of windows across tasks, set to their extremes, against Spark.

``spark.fastwindow.acrossTasks.maxSummaryEntries``, ``.maxSkewedKeys``, ``.maxValueRuns`` and
``.hashedColumns`` bound what the map tasks send the driver and how rows are split; the defaults
suit every query measured. Each limit at its least must change how the window runs (the metrics
say so) and never its answer. The helpers and tables are test_across_tasks.py's and
test_skewed_keys.py's.
"""

from __future__ import annotations

from helpers import assert_same_as_spark, run, session_confs
from test_across_tasks import ACROSS_TASKS, SPREADING, _spread, series  # noqa: F401 (a fixture)
from test_skewed_keys import _split, skewed  # noqa: F401 (a fixture)

LIMIT = "spark.fastwindow.acrossTasks."


@SPREADING
def test_summaries_past_the_most_entries_are_read_from_the_shuffle(series, spark):
    """With room for one entry no map task summarises: every range is summarised from the
    shuffle's output, read once more."""
    query = """select o, row_number() over w r, lag(v, 2) over w l, sum(v) over w s,
                      avg(x) over (order by o rows between 3 preceding and 1 following) a
               from series window w as (order by o)"""
    _spread(spark, query, 6)  # by default the map tasks summarise (no second read)
    with session_confs(spark, {LIMIT + "maxSummaryEntries": "1"}):
        _spread(spark, query, 6, summary_reads=1)


@SPREADING
def test_most_skewed_keys_split(skewed, spark):
    """Two keys are skewed (NULL and 'hot'); with a limit of one only the largest is split."""
    query = """select id, row_number() over w rn, lag(v) over w l, sum(v) over w s
               from skewed window w as (partition by k order by o, id)"""
    _split(spark, query, skewed_keys=2)
    _split(spark, query, skewed_keys=1, confs={LIMIT + "maxSkewedKeys": "1"})


@SPREADING
def test_distinct_values_past_the_most_runs_are_counted_from_the_shuffle(spark_session, spark):
    """One map task reads two runs of rows in order (1000..1999, then 0..999): by default it
    follows both and counts each range's distinct values; allowed one run, it leaves the count
    to a second read of the shuffle's output."""
    query = """select id, dense_rank() over (order by id div 3) d from
               (select /*+ COALESCE(1) */ * from (select id from range(1000, 2000)
                union all select id from range(0, 1000)))"""
    _spread(spark, query, 7, summary_reads=0)
    with session_confs(spark, {LIMIT + "maxValueRuns": "1"}):
        _spread(spark, query, 7, summary_reads=1)


def test_rows_split_by_a_hash_of_fewer_columns(series, spark):
    """Aggregates over all rows of a child that is not a scan split its rows by a hash of their
    columns; a hash of the first column alone gives the same answer."""
    query = """select id, s / sum(s) over () share, count(*) over () c
               from (select k, sum(v) s, min(o) id from series group by k)"""
    confs = {ACROSS_TASKS: "true", "spark.fastwindow.keyAggregates.enabled": "false",
             LIMIT + "hashedColumns": "1"}
    with session_confs(spark, confs):
        assert_same_as_spark(spark, query)
        fast = run(spark, query, fastwindow_on=True)
    assert all("a hash of their columns" in (r.note or "") for r in fast.reports), fast.reports


@SPREADING
def test_summaries_past_the_most_bytes_are_read_from_the_shuffle(series, spark):
    """Each map task measures the rows its summaries hold: past its share of the bytes it sends
    none, and the ranges are summarised from the shuffle's output."""
    query = """select o, lag(cast(v as string), 3) over w l, lead(x, 2) over w r
               from series window w as (order by o)"""
    _spread(spark, query, 6)
    with session_confs(spark, {LIMIT + "maxSummaryBytes": "1k"}):
        _spread(spark, query, 6, summary_reads=1)
