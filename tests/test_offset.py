"""lead and lag against Spark: every value type, offsets, defaults and IGNORE NULLS."""

import pytest
from helpers import (OFFSET_IGNORE_NULLS_COLUMN_DEFAULT, SPARK_LINE, assert_rows_equal,
                     assert_same_as_spark, run)

VALUE_TYPES = ["by", "sh", "i", "l", "f", "d", "dec", "bigdec", "s", "bin", "bo", "dt", "ts", "ntz",
               "arr", "st", "m"]

LITERAL_DEFAULTS = {
    "i": "-1", "l": "-1L", "d": "double('NaN')", "dec": "cast(1.5 as decimal(10,2))",
    "s": "'none'", "dt": "date'2000-01-01'", "ts": "timestamp'2000-01-01 00:00:00'",
    "bo": "true", "arr": "array(9)",
}

WINDOW = "partition by p order by id"


def offsets_of(x):
    exprs = [f"lag({x})", f"lead({x})", f"lag({x}, 3)", f"lead({x}, 2)", f"lead({x}, 0)",
             f"lag({x}, -2)", f"lead({x}, 1000)", f"lead({x}, 1, {x})", f"lag({x}, 2, {x})",
             f"lag({x}) ignore nulls", f"lead({x}) ignore nulls", f"lead({x}, 3) ignore nulls",
             f"lag({x}, 2) ignore nulls", f"lag({x}, 0) ignore nulls",
             f"lead({x}, 2, {x}) ignore nulls"]
    if x in LITERAL_DEFAULTS:
        exprs += [f"lag({x}, 1, {LITERAL_DEFAULTS[x]})",
                  f"lead({x}, 4, {LITERAL_DEFAULTS[x]}) ignore nulls"]
    return exprs


def spark_can_run(x):
    """The offsets of x this Spark answers in one select (helpers.py: Spark 3.5 fails on IGNORE
    NULLS with a column default), and those it does not."""
    exprs = offsets_of(x)
    if OFFSET_IGNORE_NULLS_COLUMN_DEFAULT:
        return exprs, []
    broken = [e for e in exprs if "ignore nulls" in e and f", {x})" in e]
    return [e for e in exprs if e not in broken], broken


@pytest.mark.parametrize("x", VALUE_TYPES)
def test_lead_lag_of_each_type(spark, x):
    exprs, broken = spark_can_run(x)
    cols = ", ".join(f"{e} over ({WINDOW}) as c{k}" for k, e in enumerate(exprs))
    assert_same_as_spark(spark, f"select p, id, {cols} from t")
    for e in broken:
        # Where Spark 3.5 fails, its answer to an equivalent query is the oracle: lead(x, n, x)
        # IGNORE NULLS is the n-th following non-null x, else the current row's x.
        name, n = e[:4], e.split(",")[1].strip()
        equivalent = f"coalesce({name}({x}, {n}) ignore nulls over ({WINDOW}), {x})"
        fast = run(spark, f"select p, id, {e} over ({WINDOW}) c from t", fastwindow_on=True)
        oracle = run(spark, f"select p, id, {equivalent} c from t", fastwindow_on=False)
        assert {r.operator for r in fast.reports} == {"FastWindow"}, fast.reports
        assert_rows_equal(fast.rows, oracle.rows)


def test_lead_lag_of_expressions_and_ties(spark):
    # Ties in the ORDER BY: the row order inside a tie is the sort's, identical for both.
    query = """select p, id,
                 lag(i * 2L + 1) over (partition by p order by g) a,
                 lead(concat(s, 'x'), 2, 'd') over (partition by p order by g desc) b,
                 lag(d / 2) ignore nulls over (partition by g order by i nulls last) c
               from t"""
    assert_same_as_spark(spark, query)


def test_lead_lag_without_partition_by(spark):
    query = """select id, lag(s, 5) over (order by id) a, lead(ts, 7) ignore nulls over (order by id) b
               from t"""
    assert_same_as_spark(spark, query)


def test_lead_lag_on_tiny_and_empty_partitions(spark):
    assert_same_as_spark(spark, "select p, id, lag(i) over (partition by p order by id) a, "
                                "lead(d, 2) ignore nulls over (partition by p order by id) b "
                                "from tiny")
    assert_same_as_spark(spark, "select id, lag(i) over (partition by p order by id) a from empty_t",
                         empty_input=True)


@pytest.mark.skipif(SPARK_LINE < (4, 0), reason=(
    "Spark 3.5's own lead/lag steps through the offset row by row: an offset of 2^31-1 takes it "
    "a minute per column (fastwindow 0.5-3.5 s). fastwindow's offset arithmetic is the same "
    "Scala on every line, and this test runs on the 4.x lines"))
def test_extreme_offsets(spark):
    query = """select p, id, lead(i, 2147483647) over (partition by p order by id) a,
                 lag(i, 2147483647) over (partition by p order by id) b,
                 lead(i, 2147483647) ignore nulls over (partition by p order by id) c,
                 lag(i, 2147483647, -5) ignore nulls over (partition by p order by id) d
               from t"""
    assert_same_as_spark(spark, query)
