"""sum and avg of ANSI intervals over every frame, against Spark.

Spark adds intervals with an overflow check whatever the ANSI mode, so where a frame's sum
overflows depends on the order of the additions. Sliding frames combine partial sums of the
intervals' values (months, microseconds) that cannot fail, and recompute in Spark's order every
frame whose sum of |x| comes near the interval's range: results and errors must be Spark's.
Python reads no year-month intervals: those results are compared as strings.
"""

from __future__ import annotations

import datetime as dt

import pytest
from helpers import (RUNNING_RANGE, RUNNING_ROWS, WHOLE, assert_same_as_spark,
                     assert_same_error, assert_same_outcome_with_ansi, python_rows_view)

#: Interval inputs of several fields, from t's columns (nulls where the column is null).
INTERVALS = {
    "ym": "make_ym_interval(0, sh)",
    "years": "cast(make_ym_interval(by, 0) as interval year)",
    "dt": "make_dt_interval(0, 0, 0, l)",
    "days": "cast(make_dt_interval(by, 0, 0, 0) as interval day)",
    "hms": "cast(make_dt_interval(0, sh, i % 60, dec) as interval hour to second)",
}

FRAMES = [
    WHOLE, RUNNING_ROWS, RUNNING_RANGE,
    "rows between 2 preceding and current row",
    "rows between 1 following and 3 following",
    "rows between current row and unbounded following",
    "rows between unbounded preceding and 2 preceding",
    "range between 1 preceding and 1 following",
    "range between current row and unbounded following",
]


def select(frames) -> str:
    cols = []
    for f, frame in enumerate(frames):
        order = "g, id" if frame.startswith("rows") else "g"  # RANGE with offsets: one key
        for name, x in INTERVALS.items():
            for fn in ("sum", "avg"):
                call = f"{fn}({x}) over (partition by p order by {order} {frame})"
                cols.append(f"cast({call} as string) {fn}_{name}_{f}" if name in ("ym", "years")
                            else f"{call} {fn}_{name}_{f}")
    return f"select p, id, {', '.join(cols)} from t"


@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "no_ansi"])
def test_interval_sums_over_every_frame(spark, ansi):
    """Every frame of FRAMES in one query (column suffix = its index)."""
    assert_same_as_spark(spark, select(FRAMES), ansi=ansi)


def test_interval_sums_with_filter_and_other_functions(spark):
    query = """select p, id,
                 sum(make_dt_interval(0, 0, 0, l)) over w1 a,
                 row_number() over (partition by p order by id) b,
                 cast(avg(make_ym_interval(0, sh)) over w2 as string) c,
                 min(make_dt_interval(0, 0, 0, l)) over w2 e
               from t
               window w1 as (partition by p order by id rows between 3 preceding and 1 following),
                      w2 as (order by g, id rows between 10 preceding and current row)"""
    assert_same_as_spark(spark, query)


#: Values near the interval types' limits, in an order where some frames overflow in Spark's
#: row-by-row sum and others do not (while their sum of |x| passes the guard's bound).
MICROS = 2**62
MONTHS = 2**30 + 7
SIGNS = [1, 1, -1, 0, -1, 1, -1, 1, 1, -1, -1, 0]


@pytest.fixture(scope="module")
def big_intervals(spark_session):
    rows = [(1, k, dt.timedelta(microseconds=s * MICROS), s * MONTHS + k)
            for k, s in enumerate(SIGNS)]
    python_rows_view(spark_session, "big_intervals", rows,
                     "p int, id bigint, v interval day to second, m int")
    yield "big_intervals"


OVERFLOW_FRAMES = [
    "rows between 1 preceding and current row",
    "rows between 2 preceding and current row",
    "rows between current row and 1 following",
    "rows between current row and unbounded following",
    "rows between 3 preceding and 1 preceding",
]


@pytest.mark.parametrize("fn", ["sum", "avg"])
@pytest.mark.parametrize("frame", OVERFLOW_FRAMES)
def test_overflow_matches_spark(spark, big_intervals, frame, fn):
    """Same error where Spark's row-by-row sum overflows, same values where it does not."""
    w = f"over (partition by p order by id {frame})"
    for query in (f"select id, {fn}(v) {w} s from big_intervals",
                  f"select id, cast({fn}(make_ym_interval(0, m)) {w} as string) s "
                  f"from big_intervals"):
        condition = assert_same_outcome_with_ansi(spark, query)
        if condition is not None:
            assert "OVERFLOW" in condition, condition


def test_overflow_raises_without_ansi_too(spark, big_intervals):
    """Interval additions check overflow in every mode: Spark fails with ANSI off as well."""
    query = "select id, sum(v) over (partition by p order by id " \
            "rows between 1 preceding and current row) s from big_intervals"
    assert "OVERFLOW" in assert_same_error(spark, query, ansi=False)
