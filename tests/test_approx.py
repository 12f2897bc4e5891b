"""Sketch aggregates over windows, against Spark, both evaluators.

``approx_count_distinct`` runs Spark's own HyperLogLog++ over frames whose registers fastwindow
keeps as rows enter and leave (``ApproxCountDistinctKernel``): a sketch's registers are maxima,
whatever the order of the values, so every result must equal Spark's exactly, not only within
the sketch's error.
"""

from __future__ import annotations

import pytest

from helpers import WINDOW_FILTER, assert_falls_back, assert_same_as_spark
from test_distinct import FRAMES, frame_sql
from test_mode import _handed_over

#: Tests run on the generated evaluator only (tests/conftest.py): the interpreted twin adds
#: nothing to them.
GENERATED_ONLY = pytest.mark.generated_only(
    "the subject is the frame algorithm over wide frames (the same Scala on both evaluators); "
    "the twin reads every type in the every-frame tests above.")

#: Every type of t the sketch hashes (maps included: Spark hashes them too).
SKETCHED = ["by", "sh", "i", "l", "f", "d", "dec", "bigdec", "s", "bin", "bo", "dt", "ts", "ntz",
            "arr", "st"]

#: Wide partitions with many distinct values, so frames fill many registers and values leave
#: registers they alone held: k = id % 3, 12,000 rows.
WIDE = ("(select id, id % 3 as k, id div 7 as g, "
        "cast(conv(substr(md5(cast(id * 7919 % 5003 as string)), 1, 12), 16, 10) as bigint) as v, "
        "case when id % 11 = 0 then null else cast(id % 997 as string) end as s "
        "from range(9000))")


@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: f"{f[0]}[{f[1]},{f[2]}]")
def test_approx_count_distinct_of_every_type_over_every_frame(spark, frame):
    w = frame_sql(frame)
    functions = [f"approx_count_distinct({x}) over ({w}) a{k}" for k, x in enumerate(SKETCHED)]
    if WINDOW_FILTER:
        functions.append(f"approx_count_distinct(s) filter (where i > 0) over ({w}) a_filter")
    assert_same_as_spark(spark, f"select id, {', '.join(functions)} from t")


WIDE_FRAMES = [
    "rows between 999 preceding and current row",
    "rows between 20 preceding and 30 following",
    "rows between unbounded preceding and current row",
    "rows between current row and unbounded following",
    "range between 40 preceding and 3 following",
    "rows between unbounded preceding and unbounded following",
]


@GENERATED_ONLY
@pytest.mark.parametrize("frame, rsd", [(f, 0.05) for f in WIDE_FRAMES] + [
    (WIDE_FRAMES[0], 0.01), (WIDE_FRAMES[3], 0.01), (WIDE_FRAMES[0], 0.3), (WIDE_FRAMES[4], 0.3)])
def test_approx_count_distinct_over_wide_frames_equals_spark(spark, frame, rsd):
    """Frames of up to 3,000 values, sketches of 16 to 16,384 registers: registers change as values
    enter and as the only value holding a register's maximum leaves."""
    w = f"partition by k order by g, id {frame}" if "rows" in frame else \
        f"partition by k order by g {frame}"
    rows = assert_same_as_spark(spark, (
        f"select id, approx_count_distinct(v, {rsd}) over ({w}) a, "
        f"approx_count_distinct(s, {rsd}) over ({w}) b from {WIDE}"))
    assert max(r["a"] for r in rows) > 40


def test_approx_count_distinct_with_too_many_registers_stays_on_spark(spark):
    assert_falls_back(
        spark, "select id, approx_count_distinct(i, 0.005) over (partition by p order by id) a "
               "from t", "approx_count_distinct with relativeSD 0.005")


# --------------------------------------------------------------------------------------------
# percentile_approx: where its sketch keeps every value (frames of fewer than accuracy / 2 values)
# Spark's answer is an order statistic, which fastwindow computes; other partitions, and those
# with NaN or -0.0 (whose place among the samples depends on Spark's insertion batches), are
# handed to Spark.
# --------------------------------------------------------------------------------------------

#: Every type of t percentile_approx takes, and ANSI intervals.
APPROXIMATED = ["by", "sh", "i", "l", "f", "d", "dec", "bigdec", "dt", "ts", "ntz",
                "make_ym_interval(0, i)", "make_dt_interval(0, 0, i)"]


@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: f"{f[0]}[{f[1]},{f[2]}]")
def test_percentile_approx_of_every_type_over_every_frame(spark, frame):
    w = frame_sql(frame)
    # Python reads no year-month intervals: results are compared as strings.
    functions = [f"cast(percentile_approx({x}, 0.5) over ({w}) as string) a{k}"
                 for k, x in enumerate(APPROXIMATED)]
    functions += [
        f"percentile_approx(l, array(0, 0.0001, 0.1, 0.25, 0.5, 0.9, 0.9999, 1)) over ({w}) arr",
        f"approx_percentile(dec, array(0.3, 0.7), 20) over ({w}) low_accuracy",
        f"percentile_approx(i, 0.75, 1) over ({w}) accuracy_one",
    ]
    if WINDOW_FILTER:
        functions.append(f"percentile_approx(i, 0.5) filter (where l > 0) over ({w}) a_filter")
    assert_same_as_spark(spark, f"select id, {', '.join(functions)} from t")


@pytest.mark.parametrize("frame, accuracy, handed_over", [
    ("rows between 999 preceding and current row", 10000, False),
    ("rows between 30 preceding and 30 following", 1000, False),
    ("rows between unbounded preceding and current row", 10000, False),
    ("rows between current row and unbounded following", 10000, False),
    ("range between 40 preceding and 3 following", 10000, False),
    ("rows between 599 preceding and current row", 1000, True),
    ("rows between unbounded preceding and unbounded following", 5000, True),
])
@GENERATED_ONLY
def test_percentile_approx_over_wide_frames(spark, frame, accuracy, handed_over):
    """Frames of up to 3,000 values: where one holds accuracy / 2 values or more, Spark's sketch
    starts merging samples, and the partition is Spark's (the metric shows it)."""
    w = f"partition by k order by g, id {frame}" if "rows" in frame else \
        f"partition by k order by g {frame}"
    query = (f"select id, percentile_approx(v, array(0.01, 0.5, 0.93), {accuracy}) over ({w}) a, "
             f"percentile_approx(id % 1000, 0.3, {accuracy}) over ({w}) b from {WIDE}")
    assert_same_as_spark(spark, query)
    assert (_handed_over(spark, query) > 0) == handed_over


@pytest.mark.generated_only("counts the partitions handed to Spark, which VERIFY "
                            "would count for both evaluators' runs")
def test_percentile_approx_hands_partitions_with_nan_or_negative_zero_to_spark(spark):
    query = ("select id, percentile_approx(x, 0.5) over (partition by k order by id) a from "
             "(select id, id % 4 as k, case when id = 5 then double('NaN') when id = 6 then "
             "double('-0.0') else id * 1.5 end as x from range(40))")
    rows = assert_same_as_spark(spark, query)
    assert len(rows) == 40
    assert _handed_over(spark, query) == 2
