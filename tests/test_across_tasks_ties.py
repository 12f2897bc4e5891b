"""Rows handed between ranges over ORDER BY ties, against Spark.

A window without PARTITION BY spread over ranges with halo functions (lag, lead, bounded frames)
orders each range's rows with equal ORDER BY keys (peers) by the other columns' values
(``fastwindow.exec.acrosstasks.RangeOrder``), so that the rows handed from one range to the next
are those its own task evaluates in that place. Seeded first, last and nth_value beside them
take the rows that decide their state before (after) a range among peers in that order too: the
rows are Spark's for the window ordered by the key and then by those columns.
"""

from __future__ import annotations

import pytest

from helpers import run, session_confs

SPREADING = pytest.mark.generated_only(
    "the subject is which rows ranges hand on among ties, the same Scala on both evaluators")

#: Six ranges, kept by adaptive execution, for an input this small.
RANGES = {"spark.fastwindow.acrossTasks.enabled": "true", "spark.sql.shuffle.partitions": "6",
          "spark.fastwindow.acrossTasks.minInputSize": "0",
          "spark.sql.adaptive.coalescePartitions.enabled": "false"}


@pytest.fixture(scope="module")
def ties(spark_session):
    """900 rows, 100 keys of 9 rows each over the three input partitions; ``w`` unique but NULL
    in every fourth row (rows with equal k and w hold the same values)."""
    spark_session.sql("""create or replace temporary view ties as
                         select cast(id % 100 as int) as k,
                                case when id % 4 = 0 then null else (id * 7919) % 1000 end as w
                         from range(0, 900, 1, 3)""")
    return spark_session


def _assert_ordered_by_values(spark, functions, table="ties"):
    """``functions`` (``{order}`` standing for the ORDER BY) over ORDER BY k spread over ranges
    give Spark's rows over ORDER BY k, w (the tie-break: the other column, NULL first)."""
    query = ("select k, w, " + ", ".join(f"{f} f{i}" for i, f in enumerate(functions)) +
             f" from {table}")
    with session_confs(spark, RANGES):
        fast = run(spark, query.replace("{order}", "k"), fastwindow_on=True)
    expected = run(spark, query.replace("{order}", "k, w"), fastwindow_on=False)
    assert sorted(fast.rows, key=str) == sorted(expected.rows, key=str)
    assert fast.reports and all("across tasks" in (r.note or "") for r in fast.reports), \
        fast.reports


# Each decided by rows whose place among peers the ranges must agree on; ROWS frames, so that
# ordering by k, w instead of k changes no frame but the order within ties.
DECIDED = [
    "first(w) over (order by {order} rows between unbounded preceding and current row)",
    "first(w, true) over (order by {order} rows between unbounded preceding and current row)",
    "last(w, true) over (order by {order} rows between unbounded preceding and current row)",
    "nth_value(w, 3) over (order by {order} rows between unbounded preceding and current row)",
    "last(w) over (order by {order} rows between current row and unbounded following)",
    "first(w, true) over (order by {order} rows between current row and unbounded following)",
    "last(w) over (order by {order} rows between unbounded preceding and unbounded following)",
]


@SPREADING
@pytest.mark.parametrize("function", DECIDED)
def test_first_last_and_nth_value_over_ties_beside_halo_rows(ties, spark, function):
    """With lag in the same window the seeded functions run in a second operator above the halo
    one, over the same ranges."""
    _assert_ordered_by_values(spark, [function, "lag(w, 2) over (order by {order})"])


@SPREADING
def test_dense_rank_beside_first_and_lag_over_ties(ties, spark):
    """dense_rank counts the distinct keys, not the rows the tie-break tells apart."""
    _assert_ordered_by_values(spark, ["dense_rank() over (order by k)", DECIDED[0],
                                      "lag(w) over (order by {order})"])


@SPREADING
def test_peer_groups_too_large_to_hold_are_sorted_by_spark(spark_session, spark):
    """A range whose peers are more than fastwindow holds (4,096 rows) orders them with Spark's
    sorter: the rows handed to the next range are still those its task puts last."""
    spark_session.sql("""create or replace temporary view large_ties as
                         select cast(id % 3 as int) as k, (id * 7919) % 20011 as w
                         from range(0, 15000, 1, 3)""")
    _assert_ordered_by_values(spark, ["lag(w, 2) over (order by {order})",
                                      "lead(w) over (order by {order})"], table="large_ties")
