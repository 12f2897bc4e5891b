"""Exact percentiles over windows (percentile, median, percentile_cont, percentile_disc), against
Spark: every frame, every numeric input type, one or many percentages, WITHIN GROUP ascending and
descending, constant frequencies, FILTER, nulls, NaN and infinities, long partitions with ties.

fastwindow ranks each partition's values once and answers every frame from counts of ranks
(``PercentileKernel``), where Spark sorts each frame again; results are Spark's to the bit, its
interpolation formula included (which changed in Spark 4.3). One thing is not Spark's to
reproduce: when -0.0 and 0.0 are both in a frame, Spark keeps them apart in a hash map and sorts
them as equal, so the sign of a zero result depends on the map's iteration order. Queries over
such data add 0.0 to the result (``-0.0 + 0.0`` is ``0.0``), which keeps the window's operator and
every other bit of the result.
"""

from __future__ import annotations

import pytest

from helpers import (RUNNING_RANGE, RUNNING_ROWS, SPARK_LINE, WHOLE, accepted, assert_falls_back,
                     assert_same_as_spark)

FRAMES = [
    WHOLE, RUNNING_ROWS, RUNNING_RANGE,
    "rows between 2 preceding and current row",
    "rows between 3 preceding and 2 following",
    "rows between 5 preceding and 2 preceding",
    "rows between 1 following and 3 following",
    "rows between current row and unbounded following",
    "rows between unbounded preceding and 2 preceding",
    "range between 1 preceding and 1 following",
    "range between current row and unbounded following",
    "range between 2 preceding and current row",
]

#: Every numeric input type of t (d holds NaN, infinities, +-1e308, 5e-324, -0.0 and 0.0); each
#: OVER becomes the test's window.
PERCENTILES = [
    "percentile(by, 0.5) OVER", "percentile(sh, 0.25) OVER", "percentile(i, 0.9) OVER",
    "percentile(l, 0.1) OVER", "percentile(f, 0.75) OVER", "percentile(dec, 0.5) OVER",
    "percentile(d, 0.5) OVER + 0.0", "percentile(i, 0) OVER", "percentile(l, 1) OVER",
    "percentile(cast(null as double), 0.5) OVER", "percentile(sh * 3 - by, 0.37) OVER",
    "percentile(l, array(0, 0.1, 0.5, 0.77, 1)) OVER",
    "transform(percentile(d, array(0.25, 0.5, 0.99)) OVER, x -> x + 0.0)",
]


def select(functions, window, table="t"):
    cols = ",\n".join(f"{f.replace('OVER', f'over ({window})')} c{k}"
                      for k, f in enumerate(functions))
    return f"select p, id, {cols} from {table}"


def framed(frame):
    order = "g" if frame.startswith("range") else "g, id"
    return f"partition by p order by {order} {frame}"


@pytest.mark.parametrize("frame", FRAMES)
def test_percentiles_of_every_numeric_type_over_every_frame(spark, frame):
    assert_same_as_spark(spark, select(PERCENTILES, framed(frame)))


@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "no_ansi"])
def test_frequencies_and_filters(spark, ansi):
    functions = accepted([
        "percentile(i, 0.5, 3) OVER", "percentile(f, 0.3, 0) OVER",
        "percentile(l, 0.6, cast(null as int)) OVER", "percentile(dec, array(0.2, 0.8), 2) OVER",
        "percentile(i, 0.5) filter (where bo) OVER",
        "percentile(l, 0.3) filter (where i > 0) OVER"])
    for frame in (WHOLE, "rows between 3 preceding and 1 following", RUNNING_RANGE):
        assert_same_as_spark(spark, select(functions, framed(frame)), ansi=ansi)


def test_median_and_inverse_distribution_functions_over_whole_partitions(spark):
    """Spark allows median, percentile_cont and percentile_disc over a window only without ORDER
    BY (the whole partition); WITHIN GROUP orders the values, DESC reverses them."""
    functions = ["median(i) OVER", "median(d) OVER + 0.0", "median(dec) OVER"]
    if SPARK_LINE >= (4, 0):   # WITHIN GROUP syntax: Spark 4.0+
        functions += [
            "percentile_cont(0.3) within group (order by l) OVER",
            "percentile_cont(0.3) within group (order by l desc) OVER",
            "percentile_disc(0.7) within group (order by f) OVER",
            "percentile_disc(0.7) within group (order by f desc) OVER",
            "percentile_disc(array(0, 0.5, 1)) within group (order by sh desc) OVER",
            "percentile_cont(0) within group (order by by) OVER",
        ]
    assert_same_as_spark(spark, select(functions, "partition by p"))


@pytest.mark.skipif(SPARK_LINE < (4, 0), reason="WITHIN GROUP syntax is Spark 4.0+")
def test_legacy_percentile_disc(spark):
    spark.conf.set("spark.sql.legacy.percentileDiscCalculation", "true")
    try:
        functions = [f"percentile_disc({q}) within group (order by l{desc}) OVER"
                     for q in (0.0, 0.25, 0.5, 0.7, 1.0) for desc in ("", " desc")]
        assert_same_as_spark(spark, select(functions, "partition by p"))
    finally:
        spark.conf.unset("spark.sql.legacy.percentileDiscCalculation")


@pytest.mark.parametrize("width", [1, 10, 100])
def test_long_partitions_with_ties(spark, width):
    """Three partitions of 2000 rows, values with many ties (v) and without (w)."""
    spark.range(0, 6000, 1, 2).selectExpr(
        "id % 3 as p", "id", "cast((id * 7919) % 53 as int) as v",
        "cast(id * 104729 % 10007 as double) / 7 as w", "id div 4 as g").createOrReplaceTempView("pct_long")
    functions = ["percentile(v, 0.5) OVER", "percentile(w, array(0.1, 0.5, 0.9)) OVER",
                 "percentile(v, 0.37) OVER"]
    for frame in (f"rows between {width} preceding and current row",
                  f"rows between {width} preceding and {width} following",
                  f"range between {width} preceding and {width // 2} following"):
        assert_same_as_spark(spark, select(functions, framed(frame), "pct_long"))


def test_empty_input(spark):
    assert_same_as_spark(spark, select(["percentile(d, 0.5) OVER"], framed(
        "rows between 2 preceding and current row"), "empty_t"), empty_input=True)


def test_unsupported_percentiles_fall_back(spark):
    assert_falls_back(spark, "select id, percentile(i, 0.5, by) over (partition by p) c from t "
                             "where by >= 0",
                      "percentile with a frequency that is not a constant is not supported yet")
    assert_falls_back(spark, "select id, percentile(bigdec, 0.5) over (partition by p) c from t",
                      "percentile of type DECIMAL(38,6) is not supported yet")
    assert_falls_back(spark, "select id, cast(percentile(make_ym_interval(0, i), 0.5) "
                             "over (partition by p) as string) c from t",
                      "percentile of type INTERVAL YEAR TO MONTH is not supported yet")
