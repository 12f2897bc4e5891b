"""spark.fastwindow.exactFloats: floating-point aggregates over sliding frames, bit for bit.

By default fastwindow evaluates moving, shrinking and RANGE frames in O(rows) by two stacks of
partial aggregates, so float sums, averages and moments may differ from Spark's in the last bits
(Spark folds each frame again from its first row). With ``spark.fastwindow.exactFloats=true``
they are folded in Spark's order: every result must then equal Spark's exactly (no tolerance),
on both evaluators, ANSI on and off. The data is chosen so that the default path does round
differently (checked below), so the exact comparisons can fail.
"""

from __future__ import annotations

import pytest

from pyspark.sql import Window
from pyspark.sql import functions as F

from helpers import _same, _sorted, accepted, assert_same_as_spark, run_both
from query_shapes import in_turns, window_of

EXACT = "spark.fastwindow.exactFloats"

FRAMES = [
    "rows between 2 preceding and current row",
    "rows between 5 preceding and 5 following",
    "rows between 1 following and 3 following",
    "rows between current row and unbounded following",
    "rows between 3 preceding and unbounded following",
    "rows between unbounded preceding and 2 preceding",
    "range between 2 preceding and 1 following",
    "range between current row and unbounded following",
    "range between unbounded preceding and 1 following",
]

AGGREGATES = accepted(["sum(x)", "avg(x)", "sum(f)", "avg(f)", "avg(l)", "var_pop(x)",
                       "var_samp(x)", "stddev_pop(x)", "stddev_samp(f)", "skewness(x)",
                       "kurtosis(x)", "sum(x) filter (where k % 3 <> 0)",
                       "avg(x) filter (where x > 0)"])

# Values of very different magnitudes and binary fractions: sums depend on the order of addition.
DATA = """
    select id % 4 as p, id, id div 3 as k,
           case when id % 29 = 0 then null
                else (id % 7 - 3) * power(10, id % 5 * 4 - 6) + 0.1 * (id % 11) end as x,
           cast((id % 13) * 0.3 - 1.7 as float) as f,
           case when id % 17 = 0 then null else 9007199254740993 * (id % 3 - 1) + id end as l
    from range(400)"""


def query(frame: str) -> str:
    order = "k" if frame.startswith("range") else "k, id"
    cols = ",\n".join(f"{a} over (partition by p order by {order} {frame}) c{n}"
                      for n, a in enumerate(AGGREGATES))
    return f"select p, id, {cols} from ({DATA})"


@pytest.fixture
def exact_floats(spark):
    spark.conf.set(EXACT, "true")
    yield
    spark.conf.unset(EXACT)


# Each frame with ANSI on or off in turn (18 -> 9 queries): ANSI changes only errors (an integral
# sum's overflow, which these frames do not reach; test_sliding_frames runs overflows both ways).
@pytest.mark.parametrize("frame,ansi", [(f, a) for f, (a,) in in_turns(FRAMES, [True, False])])
def test_sliding_float_aggregates_are_spark_bit_for_bit(spark, exact_floats, frame, ansi):
    assert_same_as_spark(spark, query(frame), ansi=ansi)


def product_of_x(frame: str):
    """product(x) has no SQL name: the same frame through the DataFrame API."""
    def build(spark):
        w = window_of(frame, Window.partitionBy("p"), range_order=["k"], rows_order=["k", "id"])
        return spark.sql(DATA).select("p", "id", F.product("x").over(w).alias("c"))
    return build


@pytest.mark.parametrize("frame", FRAMES)
def test_sliding_product_is_spark_bit_for_bit(spark, exact_floats, frame):
    assert_same_as_spark(spark, product_of_x(frame))


def test_the_data_makes_the_default_path_round_differently(spark):
    """Without the setting some result differs in its last bits: the tests above can fail."""
    differing = 0
    for frame in FRAMES[:4]:
        fast, vanilla = run_both(spark, query(frame))
        expected = {r["id"]: r for r in vanilla.rows}
        differing += sum(not _same(a[c], expected[a["id"]][c])
                         for a in fast.rows for c in a.__fields__)
    assert differing > 0
    fast, vanilla = run_both(spark, product_of_x(FRAMES[1]))
    assert _sorted(fast.rows) != _sorted(vanilla.rows)


def test_postgres_style_var_pop_to_the_end_of_the_partition(spark, exact_floats):
    """The shape of Spark's postgreSQL/window_part4 golden query: VAR_POP over a shrinking frame,
    where the O(n) path gives 13868.75 and Spark 13868.750000000002."""
    assert_same_as_spark(spark, """
        select i, var_pop(n) over (order by i rows between current row and unbounded following) v
        from values (1, 600.0D), (2, 470.0D), (3, 170.0D), (4, 430.0D), (5, 300.0D),
                    (6, 1234.5D), (7, 0.1D), (8, 1e6D) as t(i, n)""")


def test_exact_floats_still_streams_moving_frames(spark, exact_floats):
    """Folding in Spark's order needs only the frame's rows: a moving frame still streams."""
    import fastwindow

    df = spark.sql(query(FRAMES[0]))
    df.collect()
    metrics = [r for r in fastwindow.explain(df) if r.fastwindow][0].metrics
    assert metrics.get("numStreamedPartitions", 0) > 0 and not metrics.get("numBufferedPartitions")
