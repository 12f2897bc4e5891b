"""count, sum, avg, min, max over whole-partition and running frames, against Spark, with ANSI
mode on and off, including overflow."""

import pytest
from helpers import assert_same_as_spark, assert_same_error

NUMERIC = ["by", "sh", "i", "l", "f", "d", "dec", "bigdec"]
ORDERABLE = NUMERIC + ["s", "bin", "bo", "dt", "ts", "ntz"]

FRAMES = {
    "whole_rows": "partition by p",
    "whole_range_ordered": "partition by p order by g range between unbounded preceding and "
                           "unbounded following",
    "running_rows": "partition by p order by id rows between unbounded preceding and current row",
    "running_range_default": "partition by p order by g",   # RANGE ... CURRENT ROW, with ties
    "running_range_desc": "partition by p order by d desc nulls last",
    "running_range_global": "order by g, i",                 # no PARTITION BY
}


def aggregates_of(x):
    exprs = [f"count({x})", f"min({x})", f"max({x})"]
    if x in NUMERIC:
        exprs += [f"sum({x})", f"avg({x})"]
    return exprs


#: ANSI mode changes arithmetic (sum, avg) and nothing of count, min and max: the other types run
#: once, with Spark's default.
ANSI_CASES = [(x, ansi) for x in NUMERIC for ansi in (True, False)] + \
    [(x, None) for x in ORDERABLE if x not in NUMERIC]


@pytest.mark.parametrize("x,ansi", ANSI_CASES,
                         ids=[f"{x}-{ {True: 'ansi', False: 'no_ansi', None: 'default'}[a]}"
                              for x, a in ANSI_CASES])
def test_aggregates_over_every_frame(spark, x, ansi):
    cols = ", ".join(f"{e} over ({FRAMES[frame]}) as {frame}_{k}"
                     for frame in sorted(FRAMES)
                     for k, e in enumerate([f"count(*)"] + aggregates_of(x)))
    assert_same_as_spark(spark, f"select p, id, {cols} from t", ansi=ansi)


def test_count_of_nested_types(spark):
    query = """select p, id, count(arr) over (partition by p) a, count(st) over (partition by p
               order by id) b, count(m) over (partition by p order by g) c, count(1) over () d
               from t"""
    assert_same_as_spark(spark, query)


def test_aggregates_of_expressions(spark):
    query = """select p, id,
                 sum(i * 2L + 1) over (partition by p order by id) a,
                 avg(coalesce(d, 0) / 3) over (partition by p) b,
                 max(concat(s, 'x')) over (partition by g order by i) c,
                 min(dec * dec) over (order by g, id rows between unbounded preceding and current row) e
               from t"""
    assert_same_as_spark(spark, query)


def test_aggregates_on_empty_and_tiny_partitions(spark):
    query = "select p, id, sum(i) over (partition by p order by id) a, avg(d) over (partition by p) b, " \
            "min(i) over (partition by p order by i) c, count(*) over (partition by p) e from {}"
    assert_same_as_spark(spark, query.format("tiny"))
    assert_same_as_spark(spark, query.format("empty_t"), empty_input=True)


def test_mixed_functions_in_one_select(spark):
    query = """select p, id,
                 row_number() over w rn, rank() over w r, lag(s) over w lg,
                 sum(l) over w rs, avg(d) over (partition by p) ad,
                 max(ts) over (partition by p order by g) mx,
                 count(*) over (partition by p order by g, id rows between unbounded preceding and
                 current row) c
               from t window w as (partition by p order by g, id)"""
    assert_same_as_spark(spark, query)


# -- overflow: same values with ANSI off, same errors with ANSI on ------------------------------

OVERFLOW_QUERIES = {
    "long_sum_running": "select id, sum(v) over (partition by p order by id) s from big",
    "long_sum_whole": "select id, sum(v) over (partition by p) s from big",
    "long_sum_range": "select id, sum(v) over (partition by p order by v) s from big",
    "decimal_sum_running": "select id, sum(v) over (partition by p order by id) s from bigdec",
    "decimal_sum_whole": "select id, sum(v) over (partition by p) s from bigdec",
    "decimal_avg_running": "select id, avg(v) over (partition by p order by id) s from bigdec",
}


@pytest.mark.parametrize("name", sorted(OVERFLOW_QUERIES))
def test_overflow_without_ansi_matches_spark(spark, name):
    assert_same_as_spark(spark, OVERFLOW_QUERIES[name], ansi=False)


@pytest.mark.parametrize("name", sorted(OVERFLOW_QUERIES))
def test_overflow_with_ansi_raises_sparks_error(spark, name):
    condition = assert_same_error(spark, OVERFLOW_QUERIES[name], ansi=True)
    # (Spark 3.5 names the decimal one NUMERIC_VALUE_OUT_OF_RANGE, without a sub-condition.)
    assert condition.split(".")[0] in ("ARITHMETIC_OVERFLOW", "NUMERIC_VALUE_OUT_OF_RANGE")
