"""Sliding ROWS frames (moving, shrinking, offset, partly unbounded) against Spark.

Integral, decimal, string, binary, date and timestamp results must be exactly Spark's. Float sums
and averages combine partial sums in another order than Spark's row-by-row loop, so they may
differ in the last bits: the documented tolerance is 1e-12 times the sum of |x| over the frame
(NaN must still be NaN). Every test runs on the generated and the interpreted evaluator.
"""

from __future__ import annotations

import pytest

from helpers import (assert_float_sums_close, assert_same_as_spark, assert_same_error,
                     assert_same_outcome_with_ansi)

FRAMES = [
    "rows between 2 preceding and current row",
    "rows between 1 preceding and 1 following",
    "rows between 5 preceding and 2 preceding",      # both PRECEDING: empty at the start
    "rows between 1 following and 3 following",      # both FOLLOWING: empty at the end
    "rows between current row and current row",
    "rows between unbounded preceding and 2 preceding",
    "rows between unbounded preceding and 1 following",
    "rows between 2 preceding and unbounded following",
    "rows between 1 following and unbounded following",
    "rows between current row and unbounded following",   # shrinking
    "rows between 1000 preceding and 1000 following",     # wider than every partition
    "rows between 2147483647 preceding and 2147483646 following",  # offsets near Int.MaxValue
]

EXACT_AGGREGATES = [
    "count(*)", "count(s)", "count(d)",
    "sum(by)", "sum(sh)", "sum(i)", "sum(l)", "avg(i)", "avg(l)",
    "min(i)", "max(l)", "min(d)", "max(d)", "min(f)", "max(f)", "min(dec)", "max(bigdec)",
    "min(s)", "max(s)", "min(bin)", "max(bin)", "min(dt)", "max(ts)", "min(ntz)", "max(bo)",
]


def select_all(aggregates, frame, table="t", order="g, id"):
    cols = ",\n".join(f"{a} over (partition by p order by {order} {frame}) c{k}"
                      for k, a in enumerate(aggregates))
    return f"select p, id, {cols} from {table}"


@pytest.mark.parametrize("frame", FRAMES)
def test_exact_aggregates(spark, frame):
    assert_same_as_spark(spark, select_all(EXACT_AGGREGATES, frame), ansi=False)


@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("x", ["d", "f"])
def test_float_sums_within_tolerance(spark, frame, x):
    assert_float_sums_close(spark, x, f"partition by p order by g, id {frame}")


@pytest.mark.parametrize("frame", [FRAMES[0], FRAMES[9]])
def test_min_max_count_with_ansi(spark, frame):
    aggregates = ["count(*)", "min(d)", "max(s)", "min(dec)", "avg(i)"]
    assert_same_as_spark(spark, select_all(aggregates, frame), ansi=True)


def test_many_tiny_partitions(spark):
    aggregates = ["sum(i)", "avg(i)", "min(d)", "max(i)", "count(*)"]
    for frame in (FRAMES[1], FRAMES[3], FRAMES[9]):
        assert_same_as_spark(spark, select_all(aggregates, frame, table="tiny", order="id"),
                             ansi=False)


def test_empty_input(spark):
    assert_same_as_spark(spark, select_all(["sum(l)", "min(s)"], FRAMES[1], table="empty_t"),
                         ansi=False, empty_input=True)


@pytest.mark.parametrize("width", [1, 10, 100])
def test_long_partitions_slide_exactly(spark, width):
    # 3 partitions of ~2000 rows: the two stacks refill many times per partition.
    query = f"""
        select p, id,
          sum(v) over w s, min(v) over w mn, max(v) over w mx, count(v) over w c, avg(v) over w a
        from (select id % 3 as p, id, case when id % 17 = 0 then null else (id * 7919) % 1000 - 500 end v
              from range(6000))
        window w as (partition by p order by id rows between {width} preceding and {width // 2} following)"""
    assert_same_as_spark(spark, query, ansi=False)


SLIDING_OVERFLOW_QUERIES = {
    "long_sum": "select id, sum(v) over (partition by p order by id {frame}) s from big",
    "long_avg": "select id, avg(v) over (partition by p order by id {frame}) s from big",
    "decimal_sum": "select id, sum(v) over (partition by p order by id {frame}) s from bigdec",
    "decimal_avg": "select id, avg(v) over (partition by p order by id {frame}) s from bigdec",
}
OVERFLOW_FRAMES = {
    "moving": "rows between 1 preceding and 1 following",
    "shrinking": "rows between current row and unbounded following",
    "lagging": "rows between 3 preceding and 1 preceding",
}


@pytest.mark.parametrize("frame", sorted(OVERFLOW_FRAMES))
@pytest.mark.parametrize("name", sorted(SLIDING_OVERFLOW_QUERIES))
def test_overflow_without_ansi_matches_spark(spark, name, frame):
    query = SLIDING_OVERFLOW_QUERIES[name].format(frame=OVERFLOW_FRAMES[frame])
    assert_same_as_spark(spark, query, ansi=False)


@pytest.mark.parametrize("frame", sorted(OVERFLOW_FRAMES))
@pytest.mark.parametrize("name", sorted(SLIDING_OVERFLOW_QUERIES))
def test_overflow_with_ansi_matches_spark(spark, name, frame):
    """Same error where Spark fails; where Spark's row-by-row sums stay in range, same values."""
    query = SLIDING_OVERFLOW_QUERIES[name].format(frame=OVERFLOW_FRAMES[frame])
    condition = assert_same_outcome_with_ansi(spark, query)
    if condition is not None:
        assert "OVERFLOW" in condition or "OUT_OF_RANGE" in condition


@pytest.mark.parametrize("ansi", [True, False])
def test_decimal_and_integral_sums_exact(spark, ansi):
    aggregates = ["sum(dec)", "avg(dec)", "sum(bigdec)", "avg(bigdec)", "sum(l)", "sum(i)"]
    for frame in (FRAMES[0], FRAMES[2], FRAMES[9]):
        assert_same_as_spark(spark, select_all(aggregates, frame), ansi=ansi)
