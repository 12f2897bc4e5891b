"""stddev/variance, first/last (IGNORE NULLS), bool_and/bool_or, min_by/max_by, nth_value and
FILTER (WHERE ...) over every frame fastwindow supports, against Spark.

Everything is exact except variance and standard deviation over sliding ROWS frames: there
fastwindow merges partial moments (Chan et al.) where Spark updates row by row (Welford), so the
variance may differ in the last bits. The allowed difference is 1e-12 times the frame's sum of x^2
over max(n - 1, 1); standard deviations are compared squared, against the same bound. NaN, null
and infinity must match exactly (frames with a non-finite or huge value are recomputed row by
row). Every test runs on the generated and the interpreted evaluator (the ``spark`` fixture).
"""

from __future__ import annotations

import math

import pytest

from helpers import (RUNNING_RANGE, RUNNING_ROWS, WHOLE, WINDOW_FILTER, _same, accepted,
                     assert_same_as_spark, assert_same_error, assert_same_outcome_with_ansi,
                     needs_window_filter, python_rows_view, run_both)
from query_shapes import in_turns

SLIDING = [
    "rows between 2 preceding and current row",
    "rows between 1 preceding and 1 following",
    "rows between 5 preceding and 2 preceding",      # empty at the start
    "rows between 1 following and 3 following",      # empty at the end
    "rows between current row and current row",      # one row
    "rows between unbounded preceding and 2 preceding",
    "rows between 2 preceding and unbounded following",
    "rows between current row and unbounded following",   # shrinking
    "rows between 1000 preceding and 1000 following",
]
FRAMES = [WHOLE, RUNNING_ROWS, RUNNING_RANGE] + SLIDING
# Order keys: g has many ties (so RANGE frames have peer groups); id makes the order total.
ORDER = {RUNNING_RANGE: "g"}


def select(aggregates, frame, table="t", partition="partition by p"):
    order = ORDER.get(frame, "g, id")
    cols = ",\n".join(f"{a} over ({partition} order by {order} {frame}) c{k}"
                      for k, a in enumerate(aggregates))
    return f"select p, id, {cols} from {table}"


# -- first / last / any_value -------------------------------------------------------------------

FIRST_LAST = [
    "first(i)", "first(i, true)", "last(i)", "last(i, true)",
    "first_value(d)", "first_value(d) ignore nulls", "last_value(d)", "last_value(d) ignore nulls",
    "any_value(s)", "any_value(s, true)", "first(bin)", "last(bin, true)",
    "first(dec, true)", "last(bigdec)", "first(ts)", "last(dt, true)", "first(bo, true)",
    "last(f)", "first(arr)", "last(st, true)", "first(m, true)", "last(ntz)",
    "first(cast(null as int))", "last(7)",
]


@pytest.mark.parametrize("frame", FRAMES)
def test_first_last(spark, frame):
    assert_same_as_spark(spark, select(FIRST_LAST, frame))


# -- bool_and / bool_or (Spark: min / max of a boolean), min/max of binary and boolean ---------

BOOLEAN_AND_BINARY = [
    "bool_and(bo)", "every(bo)", "bool_or(bo)", "some(bo)", "any(bo)",
    "bool_and(i > 0)", "bool_or(d > 0)", "min(bo)", "max(bo)", "min(bin)", "max(bin)",
    "count_if(bo)",
]


@pytest.mark.parametrize("frame", FRAMES)
def test_bool_and_or_and_binary_min_max(spark, frame):
    assert_same_as_spark(spark, select(BOOLEAN_AND_BINARY, frame))


def test_bool_and_is_min_of_boolean(spark):
    plan = spark.sql("select bool_and(bo) over (partition by p) b from t")._jdf.queryExecution() \
        .optimizedPlan().toString()
    assert "min(bo" in plan


# -- min_by / max_by: ties must pick the same row as Spark ---------------------------------------

BY = [
    "min_by(id, g)", "max_by(id, g)",              # many ties of the ordering
    "min_by(s, g)", "max_by(i, g)",                # ... with null values to pick
    "min_by(id, d)", "max_by(id, d)",              # NaN (largest), -0.0 = 0.0, +-inf, nulls
    "min_by(d, i)", "max_by(f, s)", "min_by(dec, bo)", "max_by(arr, bin)",
    "max_by(id, dt)", "min_by(st, ts)", "max_by(m, ntz)", "min_by(bigdec, dec)",
    "max_by(id, 1)",                               # constant ordering: every row ties
]


@pytest.mark.parametrize("frame", FRAMES)
def test_min_by_max_by(spark, frame):
    assert_same_as_spark(spark, select(BY, frame))


@pytest.mark.parametrize("frame", [WHOLE, RUNNING_ROWS, RUNNING_RANGE, SLIDING[0], SLIDING[1],
                                   SLIDING[7], "rows between 10 preceding and 10 following"])
def test_min_by_max_by_ties_pick_spark_row(spark, frame):
    """Orderings with ties only (0/1, -0.0/0.0, NaN): the tied row Spark returns, every frame."""
    query = f"""
        select p, id,
          min_by(id, k) over w a, max_by(id, k) over w b,
          min_by(id, z) over w c, max_by(id, z) over w e,
          max_by(id, n) over w f, min_by(id, n) over w h,
          max_by(v, k) over w j
        from (select id % 3 as p, id, cast(id % 4 as int) as g, cast(id % 2 as int) as k,
                     case when id % 3 = 0 then -0.0 else 0.0 end as z,
                     case when id % 5 = 0 then double('NaN') when id % 5 = 1 then null
                          else 1.0 end as n,
                     case when id % 7 = 0 then null else id * 10 end as v
              from range(120))
        window w as (partition by p order by {ORDER.get(frame, "g, id")} {frame})"""
    assert_same_as_spark(spark, query)


# -- nth_value -----------------------------------------------------------------------------------

NTH = ["nth_value(i, 1)", "nth_value(i, 2)", "nth_value(d, 3) ignore nulls",
       "nth_value(s, 2) ignore nulls", "nth_value(arr, 1)", "nth_value(st, 4)",
       "nth_value(dec, 1000)", "nth_value(bin, 2) ignore nulls"]


@pytest.mark.parametrize("frame", [WHOLE, RUNNING_ROWS, RUNNING_RANGE])
def test_nth_value(spark, frame):
    assert_same_as_spark(spark, select(NTH, frame))


def test_nth_value_default_frames(spark):
    query = """select p, id, nth_value(i, 2) over (partition by p order by g) a,
                 nth_value(i, 2) over (partition by p order by g, id) b,
                 nth_value(l, 3) over (order by g, id) c
               from t"""
    assert_same_as_spark(spark, query)


@pytest.mark.parametrize("frame", SLIDING)
def test_nth_value_over_sliding_frames(spark, frame):
    """Spark has no merge for nth_value; fastwindow finds the frame's n-th (non-null) row."""
    assert_same_as_spark(spark, select(NTH, frame))


# -- FILTER (WHERE ...) --------------------------------------------------------------------------

FILTERED = [
    "count(*) filter (where bo)", "count(s) filter (where i > 0)",
    "sum(i) filter (where d > 0)",        # d > 0 is null for null d: those rows are skipped
    "avg(i) filter (where s < 'b')", "min(s) filter (where not bo)",
    "max(d) filter (where i % 2 = 0)", "first(s) filter (where bo)",
    "last(i, true) filter (where d is not null)", "max_by(id, g) filter (where bo)",
    "sum(l) filter (where i is null and i > 0)",   # never true; see test_filter_where_false...
]
# Filtered variances are in VARIANCE below: over sliding frames they are within tolerance.


@needs_window_filter
@pytest.mark.parametrize("frame", FRAMES)
def test_filter(spark, frame):
    assert_same_as_spark(spark, select(FILTERED, frame), ansi=False)


@needs_window_filter
@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "no_ansi"])
@pytest.mark.parametrize("frame", [WHOLE, RUNNING_ROWS, RUNNING_RANGE, SLIDING[0], SLIDING[3],
                                   SLIDING[7]])
def test_filter_on_guarded_aggregates(spark, frame, ansi):
    """Aggregates whose sliding partials are guarded (decimal sums and averages, integral sums in
    ANSI mode) keep their guard under FILTER."""
    aggregates = ["sum(dec) filter (where bo)", "avg(bigdec) filter (where i > 0)",
                  "sum(l) filter (where bo)", "sum(i) filter (where not bo)",
                  "avg(dec) filter (where s > 'a')", "try_sum(l) filter (where bo)"]
    assert_same_as_spark(spark, select(aggregates, frame), ansi=ansi)


@needs_window_filter
@pytest.mark.parametrize("frame", [RUNNING_ROWS, SLIDING[1], SLIDING[7]])
def test_filter_overflow_matches_spark(spark, frame):
    """Overflow under FILTER: same error with ANSI on, same values (nulls) with ANSI off."""
    w = f"over (partition by p order by id {frame})"
    for table in ("big", "bigdec"):
        query = f"select id, sum(v) filter (where v > 0 or id % 3 = 0) {w} s, " \
                f"avg(v) filter (where id % 2 = 0) {w} a from {table}"
        assert_same_as_spark(spark, query, ansi=False)
        assert_same_outcome_with_ansi(spark, query)
    running = "select id, sum(v) filter (where v > 0) over (partition by p order by id) s from big"
    assert assert_same_error(spark, running, ansi=True) == "ARITHMETIC_OVERFLOW"


@needs_window_filter
def test_filter_where_false_fails_in_spark_too(spark):
    """Spark 4.3's optimizer turns agg(...) FILTER (WHERE false) OVER (...) into a null literal
    that its own window operator rejects (INTERNAL_ERROR); fastwindow leaves it to Spark."""
    query = "select p, id, sum(l) filter (where false) over (partition by p) s from t"
    for enabled in ("true", "false"):
        spark.conf.set("spark.fastwindow.enabled", enabled)
        try:
            with pytest.raises(Exception, match="Unsupported window function"):
                spark.sql(query).collect()
        finally:
            spark.conf.set("spark.fastwindow.enabled", "true")


# -- variance and standard deviation --------------------------------------------------------------

VARIANCE = {
    "stddev({x})": "stddev", "stddev_samp({x})": "stddev", "std({x})": "stddev",
    "stddev_pop({x})": "stddev_pop",
    "variance({x})": "samp", "var_samp({x})": "samp", "var_pop({x})": "pop",
}
if WINDOW_FILTER:
    # the unfiltered scale bounds the filtered variance's error too
    VARIANCE["var_samp({x}) filter (where id % 3 > 0)"] = "samp"
# f: small floats; dec/bigdec: decimals (cast to double by Spark); by/l: integral; d: doubles
# with NaN, +-inf, 1e308, -0.0 and 5e-324.
VARIANCE_INPUTS = ["f", "dec", "bigdec", "by", "l", "d"]


def variance_query(x, frame, table="t", order=None, scale=True):
    order = order or ORDER.get(frame, "g, id")
    w = f"over (partition by p order by {order} {frame})"
    cols = [f"{e.format(x=x)} {w} v{k}" for k, e in enumerate(VARIANCE)]
    if scale:
        # the scale of the allowed error: sum of x^2 over max(n - 1, 1), as Spark computes it
        cols.append(f"sum(cast({x} as double) * cast({x} as double)) {w} / "
                    f"greatest(count({x}) {w} - 1, 1) scale")
    return f"select p, id, {', '.join(cols)} from {table}"


def assert_variances_close(spark, query, *, rel_tol=1e-12, ansi=None):
    """Like assert_same_as_spark, with the variance tolerance of the module docstring."""
    fast, vanilla = run_both(spark, query, ansi=ansi)
    assert {r.operator for r in fast.reports} == {"FastWindow"}, fast.reports
    assert len(fast.rows) == len(vanilla.rows)
    expected = {r["id"]: r for r in vanilla.rows}
    kinds = list(VARIANCE.values())
    inexact = 0
    for a in fast.rows:
        e = expected[a["id"]]
        for k, kind in enumerate(kinds):
            x, y = a[f"v{k}"], e[f"v{k}"]
            if _same(x, y):
                continue
            inexact += 1
            assert isinstance(x, float) and isinstance(y, float) and math.isfinite(x) \
                and math.isfinite(y), f"v{k}: fastwindow {x!r}, spark {y!r}\n{a}\n{e}"
            if kind.startswith("stddev"):
                x, y = x * x, y * y
            allowed = rel_tol * e["scale"]
            assert abs(x - y) <= allowed, f"v{k}: fastwindow {a[f'v{k}']!r}, spark {e[f'v{k}']!r}, " \
                                          f"allowed {allowed!r} on the variance\n{a}"
    return inexact


@pytest.mark.parametrize("frame", [WHOLE, RUNNING_ROWS, RUNNING_RANGE])
@pytest.mark.parametrize("x", VARIANCE_INPUTS)
def test_variance_whole_and_running_frames_exact(spark, x, frame):
    """Whole and running frames update row by row in Spark's order: bit for bit Spark's."""
    assert_same_as_spark(spark, variance_query(x, frame, scale=False))


# Each sliding frame over two of the inputs in turn (54 -> 18 queries): the frame decides how
# states are merged and removed, the input's type how values are read and added.
@pytest.mark.parametrize("frame,x", [(f, x) for f, xs in in_turns(SLIDING, VARIANCE_INPUTS, 2)
                                     for x in xs])
def test_variance_sliding_frames_within_tolerance(spark, x, frame):
    assert_variances_close(spark, variance_query(x, frame))


#: 300 of the tiny partitions (1-3 rows each): every frame of zero and of one row occurs in them,
#: as in all 3,000, at a tenth of the partitions each query starts.
FEW_TINY = "(select * from tiny where p < 300) tiny"


@pytest.mark.parametrize("legacy,ansi", [(True, False), (False, False), (False, True)])
def test_variance_of_zero_and_one_rows(spark, legacy, ansi):
    """Empty frames give null; one row gives null, or NaN (samp) under the legacy flag. (The
    same frames over the whole table are test_variance_sliding_frames_within_tolerance's.) The
    legacy flag decides the answer; ANSI runs once, without it, for its division by zero."""
    spark.conf.set("spark.sql.legacy.statisticalAggregate", str(legacy).lower())
    try:
        for frame in (SLIDING[2], SLIDING[3], SLIDING[4], RUNNING_ROWS):
            for x in ("i", "d"):
                assert_variances_close(spark, variance_query(x, frame, table=FEW_TINY, order="id"),
                                       ansi=ansi)
        rows = assert_same_as_spark(spark, variance_query("i", SLIDING[4], scale=False), ansi=ansi)
        assert all(r["v0"] is None for r in rows if r["v3"] is None)     # no row: null
        samp_of_one = {r["v0"] for r in rows if r["v3"] is not None}      # one row: NaN or null
        assert all((v is None) if not legacy else math.isnan(v) for v in samp_of_one)
    finally:
        spark.conf.unset("spark.sql.legacy.statisticalAggregate")


def test_variance_special_doubles_exact(spark):
    """NaN, +-inf and values near Double.MaxValue: overflow in Welford's updates gives NaN where
    merging partials would give infinity; those frames are recomputed row by row."""
    values = [1.0, 1e308, -1e308, 2.0, float("inf"), 3.0, 4.0, float("-inf"), 5.0, float("nan"),
              6.0, 7.0, 1e200, -1e200, 8.0, 9.0, 10.0, 5e-324, -0.0, 11.0, 12.0, 1e150, 13.0]
    rows = [(k // len(values) % 2, k, v) for k, v in enumerate(values * 3)]   # blocks
    python_rows_view(spark, "special_doubles", rows, "p int, id bigint, x double")
    for frame in [RUNNING_ROWS, WHOLE]:
        assert_same_as_spark(spark, variance_query("x", frame, table="special_doubles",
                                                   order="id", scale=False))
    inexact = 0
    for frame in SLIDING:
        inexact += assert_variances_close(
            spark, variance_query("x", frame, table="special_doubles", order="id"))
    # Only frames of ordinary values may differ (NaN, infinity and null always match exactly).
    assert inexact < 7 * len(values) * 3 * len(SLIDING) / 2


@pytest.mark.parametrize("width", [3, 50])
def test_variance_long_partitions(spark, width):
    """~2000-row partitions: the two stacks refill many times; NaN/null rows here and there."""
    query = f"""
        select p, id, {', '.join(f"{e.format(x='v')} over w v{k}" for k, e in enumerate(VARIANCE))},
          sum(v * v) over w / greatest(count(v) over w - 1, 1) scale
        from (select id % 3 as p, id, case when id % 17 = 0 then null
                                           else cast((id * 7919) % 1000 - 500 as double) / 7 end v
              from range(6000))
        window w as (partition by p order by id rows between {width} preceding and {width // 3} following)"""
    assert_variances_close(spark, query)


def test_variance_of_shifted_data(spark):
    """Large mean, small spread: the hard case for variance; still within the bound."""
    query = f"""
        select p, id, {', '.join(f"{e.format(x='v')} over w v{k}" for k, e in enumerate(VARIANCE))},
          sum(v * v) over w / greatest(count(v) over w - 1, 1) scale
        from (select id % 2 as p, id, 1e6d + (id % 13) / 8.0d v from range(400))
        window w as (partition by p order by id rows between 20 preceding and 5 following)"""
    assert_variances_close(spark, query)


# -- mixes, empty and tiny inputs ------------------------------------------------------------------

@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "no_ansi"])
def test_everything_in_one_select(spark, ansi):
    filtered = "first(i) filter (where bo)" if WINDOW_FILTER else "first(i)"
    query = f"""select p, id,
                 first(s) over w a, last(d, true) over w b, max_by(s, i) over w c,
                 bool_or(bo) over w e, nth_value(i, 2) over (partition by p order by g) f,
                 stddev_pop(i) over (partition by p) h, min_by(id, d) over w2 j,
                 {filtered} over w2 k, last(s) over w2 m
               from t
               window w as (partition by p order by g, id),
                      w2 as (partition by p order by id rows between 2 preceding and 2 following)"""
    assert_same_as_spark(spark, query, ansi=ansi)


def test_tiny_partitions_and_empty_input(spark):
    aggregates = accepted(["first(i)", "last(d, true)", "min_by(i, d)", "max_by(d, i)",
                           "var_samp(d)", "stddev_pop(i)", "bool_and(i > 2)",
                           "count(*) filter (where i > 3)"])
    for frame in (WHOLE, RUNNING_ROWS, SLIDING[1], SLIDING[3], SLIDING[7]):
        assert_same_as_spark(spark, select(aggregates, frame, table="tiny").replace("g, id", "id"))
        assert_same_as_spark(spark, select(aggregates, frame, table="empty_t"), empty_input=True)
    assert_same_as_spark(spark, select(["nth_value(i, 2)"], RUNNING_ROWS, table="tiny")
                         .replace("g, id", "id"))


def test_no_partition_by(spark):
    aggregates = accepted(["first(s, true)", "last(i)", "max_by(s, d)", "min_by(s, f)",
                           "bool_and(bo)", "sum(i) filter (where bo)"])
    for frame in (WHOLE, RUNNING_RANGE, SLIDING[1]):
        assert_same_as_spark(spark, select(aggregates, frame, partition=""))
