"""Frames shrinking from the current row to the end, on ranges of a window without PARTITION BY.

``sum(x) OVER (ORDER BY ts ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)`` (what remains)
is, on a range, a suffix of the range followed by every row of the ranges after it: each task is
seeded with the merged state of those ranges, merged after each of its frames by the two stacks.
Each function runs on both evaluators in test_across_tasks.py's per-function list; here, the
windows whose ranges must run in one task at run time: under ANSI, an integral sum whose frames
could overflow in some order (the sum of |x| of all rows comes near a long's limit), or beside a
running sum whose ranges overflowed in the shuffle's order. Spark's rows, or Spark's error.
"""

from __future__ import annotations

import pytest

from helpers import assert_runs_agree, assert_same_error, run_both, session_confs
from test_across_tasks import ACROSS_TASKS, RANGES, SPREADING

SHRINKING = "rows between current row and unbounded following"
RANGED = {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "3",
          "spark.sql.adaptive.coalescePartitions.enabled": "false"}


@pytest.fixture(scope="module")
def swings(spark_session):
    """600 rows alternating +4e18 and -4e18 by ``o`` (no sum in that order overflows a long; the
    sum of |v| does), the positive ones read first."""
    spark_session.sql("""
        create or replace temporary view swings as
        select case when id < 300 then 2 * id else 2 * (id - 300) + 1 end as o,
               case when id < 300 then 4000000000000000000 else -4000000000000000000 end as v,
               id
        from range(0, 600, 1, 2)""")
    return spark_session


@pytest.mark.parametrize("ansi,ranges,beside", [
    (True, 1, ""), (True, 1, ", sum(v) over (order by o) r"), (False, 3, "")],
    ids=["ansi", "ansi-beside-a-running-sum", "legacy"])
@SPREADING
def test_sums_near_overflow_run_in_one_task(swings, spark, ansi, ranges, beside):
    """Under ANSI the shrinking sums could overflow in another order than Spark's (alone: the
    sum of |v|; beside the running sum: its ranges overflowed in the shuffle's order), so the
    ranges run in one task at run time; without ANSI they wrap alike in any order and spread."""
    query = f"select id, sum(v) over (order by o {SHRINKING}) s{beside} from swings"
    with session_confs(spark, {**RANGED, "spark.sql.ansi.enabled": str(ansi).lower()}):
        fast, vanilla = run_both(spark, query)
    assert_runs_agree(fast, vanilla)
    assert [dict(r.metrics).get(RANGES) for r in fast.reports] == [ranges], fast.reports


@SPREADING
def test_sums_that_overflow_fail_as_spark(spark):
    with session_confs(spark, RANGED):
        condition = assert_same_error(
            spark, f"select sum(id * 4000000000000000) over (order by id {SHRINKING}) "
                   "from range(3000)")
    assert condition == "ARITHMETIC_OVERFLOW"
