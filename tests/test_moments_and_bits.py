"""bit_and/bit_or/bit_xor, skewness, kurtosis and product over every frame, against Spark.

These came in as one registry line each (``AggregateFamily.rules``): the declarative aggregate
kernels run them with Spark's own expressions. Bit operations are exact over every frame (any
merge order gives the same bits). Skewness and kurtosis are exact over whole and running frames
(Spark's order, row by row); over sliding ROWS and RANGE frames the two stacks merge partial
moments where Spark updates row by row, so they may differ in the last bits: the tests allow
1e-9 times max(1, |Spark's value|) on data whose variance is not near zero relative to its mean
(where these statistics are ill-conditioned in any algorithm), and NaN, null and infinity must
match exactly (frames with a non-finite or huge value are recomputed row by row). Products are
exact over whole and running frames and within the same tolerance over sliding ones, where frames
whose partial products could overflow or underflow are recomputed in Spark's order.
"""

from __future__ import annotations

import math

import pytest
from pyspark.sql import Window
from pyspark.sql import functions as F

from helpers import (RUNNING_RANGE, RUNNING_ROWS, WHOLE, _same, accepted, assert_same_as_spark,
                     run, run_both)
from query_shapes import window_of

SLIDING = [
    "rows between 2 preceding and current row",
    "rows between 1 preceding and 1 following",
    "rows between 5 preceding and 2 preceding",
    "rows between 1 following and 3 following",
    "rows between current row and unbounded following",
    "rows between unbounded preceding and 2 preceding",
]
RANGE = [
    "range between 1 preceding and 1 following",
    "range between current row and unbounded following",
    "range between 2 preceding and current row",
]
EXACT_FRAMES = [WHOLE, RUNNING_ROWS, RUNNING_RANGE]


def select(aggregates, frame, table="t"):
    order = "g" if frame.startswith("range") else "g, id"
    cols = ",\n".join(f"{a} over (partition by p order by {order} {frame}) c{k}"
                      for k, a in enumerate(aggregates))
    return f"select p, id, {cols} from {table}"


BITS = accepted(["bit_and(by)", "bit_or(sh)", "bit_xor(i)", "bit_and(l)", "bit_or(l)",
                 "bit_xor(l)", "bit_and(i % 1000 + 1)", "bit_xor(by) filter (where bo)",
                 "bit_or(cast(null as int))", "bit_and(7)"])


@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "no_ansi"])
@pytest.mark.parametrize("frame", EXACT_FRAMES + SLIDING + RANGE)
def test_bit_operations_exact_over_every_frame(spark, frame, ansi):
    assert_same_as_spark(spark, select(BITS, frame), ansi=ansi)


def test_bit_operations_over_a_cast_input(spark):
    """Spark's analyzer accepts only integral inputs: a double must be cast, and fastwindow runs
    the cast (try_cast: t.d holds NaN and infinities, which a plain cast rejects under ANSI)."""
    assert_same_as_spark(spark, "select id, bit_xor(try_cast(d as bigint)) over (partition by p "
                                "order by id rows between 3 preceding and current row) x from t")


MOMENTS = accepted(["skewness(d)", "kurtosis(d)", "skewness(i)", "kurtosis(l)", "skewness(dec)",
                    "kurtosis(f)", "skewness(d) filter (where bo)"])


@pytest.mark.parametrize("frame", EXACT_FRAMES)
def test_skewness_kurtosis_exact_over_whole_and_running_frames(spark, frame):
    assert_same_as_spark(spark, select(MOMENTS, frame))


def assert_close(spark, query, rel_tol=1e-9, vanilla=None):
    """fastwindow's rows within ``rel_tol`` of Spark's (``vanilla``: Spark's run made already)."""
    if vanilla is None:
        fast, vanilla = run_both(spark, query)
    else:
        fast = run(spark, query, fastwindow_on=True)
    assert {r.operator for r in fast.reports} == {"FastWindow"}, fast.reports
    expected = {r["id"]: r for r in vanilla.rows}
    assert len(fast.rows) == len(vanilla.rows)
    for a in fast.rows:
        e = expected[a["id"]]
        for column in a.__fields__:
            x, y = a[column], e[column]
            if _same(x, y):
                continue
            assert isinstance(x, float) and isinstance(y, float) and math.isfinite(x) \
                and math.isfinite(y), f"{column}: fastwindow {x!r}, spark {y!r}\n{a}\n{e}"
            assert abs(x - y) <= rel_tol * max(1.0, abs(y)), \
                f"{column}: fastwindow {x!r}, spark {y!r}\n{a}"


@pytest.mark.parametrize("frame", SLIDING + RANGE)
def test_skewness_kurtosis_sliding_frames_within_tolerance(spark, frame):
    """Values spread around zero (t.d has NaN, +-inf and 1e308: recomputed row by row)."""
    assert_close(spark, select(MOMENTS, frame))


@pytest.mark.parametrize("width", [3, 40])
def test_skewness_kurtosis_long_partitions(spark, width):
    query = f"""
        select p, id, skewness(v) over w s, kurtosis(v) over w k
        from (select id % 3 as p, id, case when id % 17 = 0 then null
                                           else cast((id * 7919) % 1000 - 500 as double) / 7 end v
              from range(6000))
        window w as (partition by p order by id rows between {width} preceding and {width // 3} following)"""
    assert_close(spark, query)



# product has no SQL name (Spark registers it only in the DataFrame API).
PRODUCTS = ["d", "i % 7 - 3", "f", "dec", "l % 5 + 1"]


def products(inputs, frame, source="t"):
    """product of each input over (partition by p order by g[, id] frame), as a DataFrame."""
    def query(spark):
        w = window_of(frame, Window.partitionBy("p"), range_order=["g"], rows_order=["g", "id"])
        df = spark.table(source) if source == "t" else spark.sql(source)
        return df.select("p", "id", *(F.product(F.expr(x)).over(w).alias(f"c{k}")
                                      for k, x in enumerate(inputs)))
    return query


@pytest.mark.parametrize("frame", EXACT_FRAMES)
def test_product_exact_over_whole_and_running_frames(spark, frame):
    assert_same_as_spark(spark, products(PRODUCTS, frame))


@pytest.mark.parametrize("frame", SLIDING + RANGE)
def test_product_sliding_frames_within_tolerance(spark, frame):
    """t.d has NaN, +-inf and 1e308: those frames are recomputed row by row."""
    assert_close(spark, products(PRODUCTS, frame))


# Powers of two multiply exactly in any order unless a partial product leaves the doubles'
# normal range: then the order decides between infinity, zero and NaN (0 * inf), and between a
# finite result and either. Sliding frames are compared exactly: only the guard (frames with a
# large sum of |ln |x||, recomputed in Spark's order) makes them equal.
EXTREME_PRODUCTS = """
    select id % 2 as p, id, id div 3 as g,
           case id % 11 when 0 then power(2d, 700) when 1 then power(2d, 700)
                        when 2 then power(2d, -700) when 3 then power(2d, -700)
                        when 4 then 0d when 5 then cast('inf' as double)
                        when 6 then -power(2d, 600) when 7 then power(2d, -3)
                        when 8 then null when 9 then -0d else power(2d, 400) end as d
    from range(300)"""


@pytest.mark.parametrize("frame", SLIDING + RANGE)
def test_product_overflow_and_underflow_in_sparks_order(spark, frame):
    assert_same_as_spark(spark, products(["d"], frame, source=EXTREME_PRODUCTS))
