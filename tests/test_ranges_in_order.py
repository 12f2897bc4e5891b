"""Ranges of a window without PARTITION BY read in order from the map tasks, against Spark.

Where each map task sends a range its rows in the order of the window's first ORDER BY key, over
spans of keys that do not overlap (a table written in time order), the range's blocks read one
after the other are sorted: FastWindow reads them so instead of Spark's sort of the range
(``numRangesInOrder``). Every query here must give Spark's rows, and read its ranges in order
exactly where the map tasks' rows allow it: in order with ties (seeded functions; halo functions,
whose ties the window orders by a tie-break), NULL keys, descending keys, dates, timestamps;
and no range in order where the rows reach the map tasks out of order, or in runs that overlap.
"""

from __future__ import annotations

import pytest

from helpers import assert_runs_agree, run_both, session_confs
from test_across_tasks import ACROSS_TASKS, SPREADING

IN_ORDER = "numRangesInOrder"

#: Rows in three map tasks, each a run of ids (``range`` splits them in order): ``o`` unique and
#: ascending, ``t`` ascending with ties, ``d`` descending, ``n`` ascending with NULLs first,
#: ``m`` ascending with a NULL every 50 rows, dates (with ties) and timestamps ascending; ``v``
#: values to sum, ``x`` to lag.
SERIES = """
    select id as o, id div 3 as t, -id as d,
           case when id < 40 then null else id end as n,
           case when id % 50 = 0 then null else id end as m,
           date_add(date'2020-01-01', cast(id div 2 as int)) as dt,
           timestamp_seconds(1700000000 + id * 7) as ts,
           (id * 7919) % 1000 - 500 as v,
           cast((id * 104729) % 1000 as double) / 8 as x
    from range(0, 3000, 1, 3)"""


@pytest.fixture(scope="module")
def ordered(spark_session):
    spark_session.sql(f"create or replace temporary view ordered as {SERIES}")
    # Each map task's rows in order, but spanning all the keys (the runs overlap): task i has
    # the keys 3j + i.
    spark_session.sql("create or replace temporary view interleaved as "
                      "select (o % 1000) * 3 + o div 1000 as o, v, x from ordered")
    # The same rows with their order lost in each map task.
    spark_session.sql("create or replace temporary view shuffled as "
                      "select * from ordered distribute by pmod(v, 3) sort by x")
    return spark_session


RANGES = 6


def _in_order(spark, query: str, ranges: int = RANGES) -> list:
    """``query``'s FastWindows give Spark's rows over more than one range; returns each one's
    count of ranges read in order."""
    confs = {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": str(ranges),
             "spark.sql.adaptive.coalescePartitions.enabled": "false"}
    with session_confs(spark, confs):
        fast, vanilla = run_both(spark, query)
    assert_runs_agree(fast, vanilla)
    assert all(dict(r.metrics).get("numRanges", 0) > 1 for r in fast.reports), fast.reports
    return [dict(r.metrics).get(IN_ORDER, 0) for r in fast.reports]


# (window expressions, view, ranges the operator reading the shuffle reads in order). Seeded
# functions take ties in order, halo functions (lag, lead, moving frames) order them by a
# tie-break after reading; keys after the first ask the first key to have none in a range.
CASES = [
    ("row_number() over (order by o)", "ordered", RANGES),
    ("rank() over (order by t), sum(v) over (order by t)", "ordered", RANGES),
    ("dense_rank() over (order by t), count(v) over (order by t)", "ordered", RANGES),
    ("percent_rank() over (order by t), cume_dist() over (order by t)", "ordered", RANGES),
    ("lag(x) over (order by o), avg(v) over (order by o rows between 2 preceding and 1 following)",
     "ordered", RANGES),
    ("row_number() over (order by d desc)", "ordered", RANGES),
    ("row_number() over (order by o, x)", "ordered", RANGES),
    ("rank() over (order by dt), max(v) over (order by dt)", "ordered", RANGES),
    ("lag(v) over (order by ts), ntile(5) over (order by ts)", "ordered", RANGES),
    # NULLs first, sent first: in order with ties.
    ("sum(v) over (order by n nulls first)", "ordered", RANGES),
    ("lead(x, 2) over (order by n nulls first)", "ordered", RANGES),
    ("lag(x) over (order by t)", "ordered", RANGES),
    # NULLs last, sent first by one map task: its block of the last range is read last.
    ("sum(v) over (order by n nulls last)", "ordered", RANGES),
    # A NULL every 50 rows: the range of the NULLs is out of order, the others are not.
    ("sum(v) over (order by m nulls first)", "ordered", RANGES - 1),
    # Descending over ascending rows, ties before a second key: sorted.
    ("row_number() over (order by o desc)", "ordered", 0),
    ("row_number() over (order by t, o)", "ordered", 0),
    # Runs that overlap, rows out of order.
    ("row_number() over (order by o), sum(v) over (order by o)", "interleaved", 0),
    ("lag(x) over (order by o), sum(v) over (order by o)", "shuffled", 0),
]


@SPREADING
@pytest.mark.parametrize("exprs,view,expected", CASES,
                         ids=[f"{c[1]}{i}" for i, c in enumerate(CASES)])
def test_ranges_read_in_order_exactly_where_the_map_tasks_saw_them_in_order(ordered, spark, exprs,
                                                                            view, expected):
    counts = _in_order(spark, f"select o, {exprs} from {view}")
    # The operator reading the shuffle (the lowest one) reads them; one above it reads its rows.
    assert max(counts) == expected, counts


@SPREADING
def test_ranges_in_order_with_adaptive_coalescing(ordered, spark):
    """Adaptive execution coalesces the ranges into fewer tasks: each task reads its ranges'
    blocks one range after the other."""
    query = """select o, row_number() over (order by o) r, lag(x) over (order by o) l
               from (select id as o, (id * 7919) % 1000 as x from range(0, 200000, 1, 3))"""
    with session_confs(spark, {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "12",
                               "spark.sql.adaptive.coalescePartitions.enabled": "true",
                               "spark.sql.adaptive.coalescePartitions.parallelismFirst": "false",
                               "spark.sql.adaptive.coalescePartitions.minPartitionSize": "1k",
                               "spark.sql.adaptive.advisoryPartitionSizeInBytes": "512k"}):
        fast, vanilla = run_both(spark, query)
    assert_runs_agree(fast, vanilla)
    counts = [(dict(r.metrics).get("numRanges", 0), dict(r.metrics).get(IN_ORDER, 0))
              for r in fast.reports]
    assert all(1 < ranges < 12 for ranges, _ in counts), counts
    assert any(ranges == in_order for ranges, in_order in counts), counts
