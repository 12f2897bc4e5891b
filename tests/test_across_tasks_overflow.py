"""Sums of windows spread over tasks that overflow a long, under ANSI, against Spark.

A range's fold or the merge of ranges' states may overflow where Spark's loop over the rows in
order does not, and the rows may overflow in order where no range's fold and no merge does;
either way the states are folded range by range in the window's order, which gives Spark's
value or fails where Spark fails. The helpers are test_across_tasks.py's.
"""

from __future__ import annotations

import pytest

from helpers import assert_same_error, session_confs
from test_across_tasks import ACROSS_TASKS, SPREADING, _spread


@SPREADING
def test_sums_that_overflow_in_a_range_but_not_in_order(spark_session, spark):
    """Under ANSI, a range whose rows overflow a long when added in shuffle order (all the
    positive ones first) but not in the window's order (they alternate with negative ones): the
    states are folded in the window's order instead, and the results are Spark's (a string's
    last value too, which that fold copies out of each row it reads)."""
    spark.sql("""
        create or replace temporary view swings as
        select case when id < 300 then 2 * id else 2 * (id - 300) + 1 end as o,
               case when id < 300 then 4000000000000000000 else -4000000000000000000 end as v,
               id
        from range(600)""")
    _spread(spark, """select id, sum(v) over (order by o) s, sum(v) over (order by o rows between
                      unbounded preceding and unbounded following) t,
                      last(concat(cast(id as string), 'x')) over (order by o) l from swings""", 3,
            ansi=True)


@SPREADING
@pytest.mark.parametrize("frame", ["", "rows between unbounded preceding and unbounded following"])
def test_sums_that_overflow_in_order_fail_as_spark(spark_session, spark, frame):
    with session_confs(spark, {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "3",
                               "spark.sql.adaptive.coalescePartitions.enabled": "false"}):
        condition = assert_same_error(
            spark, f"select sum(id * 4000000000000000) over (order by id {frame}) from range(3000)")
    assert condition == "ARITHMETIC_OVERFLOW"


@SPREADING
def test_whole_frame_sums_that_overflow_only_in_order_fail_as_spark(spark_session, spark):
    """Under ANSI, a whole frame's sum whose rows overflow a long in the window's order (4e18
    three times) but neither in the map tasks' orders (+, -, + in one, -, +, - in the other) nor
    when their states merge: Spark's loop fails at the third row, and so does the window across
    tasks, whose states are folded in order when the sum of |x| could overflow in some order."""
    big = 4000000000000000000
    keys = {0: -6, 1: -3, 2: -5, 300: -2, 301: -4, 302: -1}
    o = "case id " + " ".join(f"when {i} then {k}" for i, k in keys.items()) + " else id end"
    v = (f"case when id in (0, 2, 301) then {big} when id in (1, 300, 302) then -{big} "
         "else 0 end")
    with session_confs(spark, {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "3",
                               "spark.sql.adaptive.coalescePartitions.enabled": "false"}):
        condition = assert_same_error(
            spark, f"""select sum(v) over (order by o rows between unbounded preceding and
                       unbounded following) s from (select {o} as o, {v} as v
                       from range(0, 600, 1, 2))""")
    assert condition == "ARITHMETIC_OVERFLOW"
