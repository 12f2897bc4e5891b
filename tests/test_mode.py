"""``mode`` over windows: every frame in O(n log d) per partition (``ModeKernel``), against Spark,
both evaluators.

Where values tie for the largest count, ``mode(x, true)`` and ``mode() WITHIN GROUP (ORDER BY x
[DESC])`` (Spark 4.0+) break the tie by the values' order, which fastwindow reproduces; plain
``mode(x)`` returns whichever its hash map iterates first, so fastwindow hands a partition where
that happens to Spark: same rows, and the metric shows it.
"""

from __future__ import annotations

import pytest

import fastwindow
from helpers import SPARK_LINE, WINDOW_FILTER, assert_falls_back, assert_same_as_spark
from test_distinct import FRAMES, frame_sql

#: Every kind of value mode counts on fastwindow (floating values fall back, see below).
MODE_VALUES = ["by", "i", "l", "dec", "bigdec", "s", "bin", "bo", "dt", "ts", "ntz", "arr", "st",
               "g"]

ORDERED_TIES = SPARK_LINE >= (4, 0)  # mode(x, true) and WITHIN GROUP: Spark 4.0+


def _handed_over(spark, query: str) -> int:
    df = spark.sql(query)
    df.collect()
    return sum(r.metrics.get("numHandedOverPartitions", 0) for r in fastwindow.explain(df)
               if r.fastwindow)


@pytest.mark.skipif(not ORDERED_TIES, reason="mode(x, true) is Spark 4.0+")
@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: f"{f[0]}[{f[1]},{f[2]}]")
def test_mode_with_ordered_ties_of_every_type_over_every_frame(spark, frame):
    w = frame_sql(frame)
    functions = [f"mode({x}, true) over ({w}) m{k}" for k, x in enumerate(MODE_VALUES)]
    functions.append(f"mode() within group (order by i desc) over ({w}) m_desc")
    if WINDOW_FILTER:
        functions.append(f"mode(s, true) filter (where i > 0) over ({w}) m_filter")
    assert_same_as_spark(spark, f"select id, {', '.join(functions)} from t")


@pytest.mark.parametrize("frame", [("rows", None, None), ("rows", -3, 1), ("range", -1, 1)],
                         ids=lambda f: f"{f[0]}[{f[1]},{f[2]}]")
def test_plain_mode_hands_tied_partitions_to_spark(spark, frame):
    """Tied frames are common in t's small partitions: those partitions are Spark's."""
    query = (f"select id, mode(i) over ({frame_sql(frame)}) a, "
             f"mode(s) over ({frame_sql(frame)}) b from t")
    assert_same_as_spark(spark, query)
    assert _handed_over(spark, query) > 0


def test_plain_mode_without_ties_stays_on_fastwindow(spark):
    """Each partition has one most frequent value in every frame (k repeats its value 0 at least
    as often as any other, and first): nothing is handed over."""
    query = ("select id, mode(v) over (partition by k order by id) r, mode(v) over (partition by k) "
             "w from (select id, id % 7 as k, case when id % 3 = 0 or id < 14 then 0 else id end v "
             "from range(300))")
    rows = assert_same_as_spark(spark, query)
    assert {r["w"] for r in rows} == {0}
    assert _handed_over(spark, query) == 0


def test_mode_of_floating_values_stays_on_spark(spark):
    """Spark's hash map tells NaNs and zeros apart by boxed equality; fastwindow leaves them."""
    assert_falls_back(spark, "select id, mode(d) over (partition by p) m from t",
                      "mode of type DOUBLE is not supported yet")
