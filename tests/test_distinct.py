"""Distinct aggregates over windows: ``count/sum/avg(DISTINCT ...) OVER`` (an extension: Spark's
analyzer rejects them, fastwindow's rule rewrites them into ``size(collect_set(...))`` and folds of
``sum``/``avg`` over ``collect_set(...)``) and users' ``size(collect_set(x)) OVER``, which fastwindow
answers in O(n) per partition (O(n log n) for floating sums) without building any set
(``DistinctValuesKernel``).

The DISTINCT aggregates are checked against an independent reference — the frames and their
distinct values computed in Python from the table's rows — with fastwindow on (where FastWindow
must run them) and off (where Spark's own window runs the rewrite). ``size(collect_set)`` is
checked against Spark, every frame and value type, both evaluators.
"""

from __future__ import annotations

import decimal
import math
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest

from pyspark.errors import AnalysisException

from helpers import (ENABLED, SPARK_LINE, WINDOW_FILTER, assert_falls_back, assert_same_as_spark,
                     assert_same_outcome_with_ansi, run)

#: (kind, lower, upper): offsets from the current row (ROWS, ordered by g, id) or from its g
#: (RANGE, ordered by g); None is UNBOUNDED.
Frame = Tuple[str, Optional[int], Optional[int]]

FRAMES: List[Frame] = [
    ("rows", None, None), ("rows", None, 0), ("range", None, 0), ("rows", -2, 0), ("rows", -3, 2),
    ("rows", 1, 3), ("rows", 0, None), ("rows", None, -2), ("range", -1, 1), ("range", 0, None),
    ("range", -2, 0), ("range", 1, 2),
]

#: count(DISTINCT ...) arguments -> the columns of t they read.
DISTINCT_ARGUMENTS: Dict[str, Tuple[str, ...]] = {
    "i": ("i",), "s": ("s",), "d": ("d",), "f": ("f",), "dec": ("dec",), "dt": ("dt",),
    "bin": ("bin",), "arr": ("arr",), "st": ("st",), "i, s": ("i", "s"), "d, bo": ("d", "bo"),
}


def frame_sql(frame: Frame) -> str:
    kind, lower, upper = frame

    def bound(offset: Optional[int], unbounded: str) -> str:
        if offset is None:
            return f"unbounded {unbounded}"
        if offset == 0:
            return "current row"
        return f"{abs(offset)} {'preceding' if offset < 0 else 'following'}"

    order = "g" if kind == "range" else "g, id"
    return (f"partition by p order by {order} {kind} between {bound(lower, 'preceding')} "
            f"and {bound(upper, 'following')}")


def normalized(value: Any) -> Any:
    """A value as a grouped count(DISTINCT) compares it: one NaN, -0.0 equal to 0.0."""
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else value + 0.0
    if isinstance(value, (list, tuple)):
        return tuple(normalized(v) for v in value)
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def reference_values(rows: Sequence[Any], frame: Frame, columns: Tuple[str, ...],
                     only_if: Optional[str] = None) -> Dict[int, set]:
    """id -> the distinct non-null combinations of ``columns`` in the row's frame, computed from
    the rows alone."""
    kind, lower, upper = frame
    by_partition: Dict[Any, List[Any]] = {}
    for r in rows:
        by_partition.setdefault(r["p"], []).append(r)
    counts = {}
    for part in by_partition.values():
        part.sort(key=lambda r: (r["g"], r["id"]))
        for i, r in enumerate(part):
            if kind == "rows":
                first = 0 if lower is None else max(i + lower, 0)
                last = len(part) - 1 if upper is None else min(i + upper, len(part) - 1)
                members = part[first:last + 1] if first <= last else []
            else:
                members = [m for m in part
                           if (lower is None or m["g"] >= r["g"] + lower)
                           and (upper is None or m["g"] <= r["g"] + upper)]
            counts[r["id"]] = {tuple(normalized(m[c]) for c in columns) for m in members
                               if all(m[c] is not None for c in columns)
                               and (only_if is None or m[only_if])}
    return counts


def reference_counts(rows: Sequence[Any], frame: Frame, columns: Tuple[str, ...],
                     only_if: Optional[str] = None) -> Dict[int, int]:
    return {i: len(v) for i, v in reference_values(rows, frame, columns, only_if).items()}


def float_sum(values: Sequence[Any]) -> Tuple[float, float]:
    """The sum of doubles (one NaN stands for all) and the scale of its rounding error (the sum
    of magnitudes): Spark adds a set's values in its hash order, so its sum may differ from the
    exact one by the rounding of each addition."""
    values = [math.nan if v == "NaN" else v for v in values]
    if any(math.isnan(v) for v in values) or {math.inf, -math.inf} <= set(values):
        return math.nan, 0.0
    if any(math.isinf(v) for v in values):
        return next(v for v in values if math.isinf(v)), 0.0
    exact = sum(Fraction(v) for v in values)
    magnitudes = min(sum(Fraction(abs(v)) for v in values), Fraction(sys.float_info.max))
    return float(exact), float(magnitudes)


def decimal_average(total: Decimal, count: int, scale: int) -> Decimal:
    """Spark's decimal average: the quotient at the division's scale (up to 38 digits, here 20
    places), then rounded half up to the result's scale (the input's + 4)."""
    with decimal.localcontext() as context:
        context.prec = 60
        quotient = (total / count).quantize(Decimal(1).scaleb(-20), decimal.ROUND_HALF_UP)
        return quotient.quantize(Decimal(1).scaleb(-(scale + 4)), decimal.ROUND_HALF_UP)


#: sum/avg(DISTINCT) arguments -> how the reference aggregates a frame's distinct values (None
#: when there are none), and the scale of the allowed error of floating results (0: exact).
DISTINCT_FOLDS = {
    "sum(distinct i)": lambda v: (sum(v), 0.0),
    "sum(distinct by)": lambda v: (sum(v), 0.0),
    "sum(distinct l)": lambda v: (sum(v), 0.0),
    "sum(distinct dec)": lambda v: (sum(v), 0.0),
    "sum(distinct d)": float_sum,
    "avg(distinct i)": lambda v: (sum(v) / len(v), 0.0),
    "avg(distinct dec)": lambda v: (decimal_average(sum(v), len(v), 2), 0.0),
    "avg(distinct f)": lambda v: (float_sum(v)[0] / len(v), float_sum(v)[1] / len(v)),
}


def assert_matches_reference(column: str, value: Any, expected: Any, scale: float) -> None:
    if isinstance(expected, float) and math.isnan(expected):
        assert isinstance(value, float) and math.isnan(value), f"{column}: {value}, expected NaN"
    elif scale:
        assert value == expected or abs(value - expected) <= 1e-12 * scale, (
            f"{column}: {value}, reference {expected} (error scale {scale})")
    else:
        assert value == expected, f"{column}: {value}, reference {expected}"


@pytest.fixture(scope="module")
def table_rows(spark_session):
    return spark_session.sql("select * from t").collect()


@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: f"{f[0]}[{f[1]},{f[2]}]")
def test_distinct_aggregates_over_every_frame_equal_an_independent_reference(
        spark, table_rows, frame):
    """count(DISTINCT) of every argument set, and sum/avg(DISTINCT) of every numeric kind."""
    w = frame_sql(frame)
    names = list(DISTINCT_ARGUMENTS)
    functions = [f"count(distinct {a}) over ({w}) c{k}" for k, a in enumerate(names)]
    expected = {f"c{k}": reference_counts(table_rows, frame, DISTINCT_ARGUMENTS[a])
                for k, a in enumerate(names)}
    if WINDOW_FILTER:  # FILTER over a window: Spark 4.2+
        functions.append(f"count(distinct s) filter (where bo) over ({w}) c_filter")
        expected["c_filter"] = reference_counts(table_rows, frame, ("s",), only_if="bo")
    folds = {}
    for k, (call, aggregate) in enumerate(DISTINCT_FOLDS.items()):
        functions.append(f"{call} over ({w}) a{k}")
        column = call[call.index(" ") + 1:-1]
        folds[f"a{k}"] = {i: aggregate([v[0] for v in values]) if values else (None, 0.0)
                          for i, values in reference_values(table_rows, frame, (column,)).items()}
    query = f"select id, {', '.join(functions)} from t"
    for fastwindow_on in (True, False):
        result = run(spark, query, fastwindow_on=fastwindow_on)
        operators = {r.operator for r in result.reports}
        assert operators == ({"FastWindow"} if fastwindow_on else {"Window"}), result.reports
        for row in result.rows:
            where = f" of id {row['id']} (fastwindow {'on' if fastwindow_on else 'off'})"
            for column, counts in expected.items():
                assert row[column] == counts[row["id"]], (
                    f"{column}{where}: {row[column]}, reference {counts[row['id']]}")
            for column, reference in folds.items():
                assert_matches_reference(column + where, row[column], *reference[row["id"]])


def test_bigint_distinct_sums_that_may_overflow_are_sparks(spark):
    """A partition whose bigint values' magnitudes sum past bigint is handed to Spark: whether an
    ANSI sum of a set overflows depends on the set's order, so only Spark gives Spark's outcome.
    Here the set of k = 1 sums to about 2^62, but Spark adds its two positive values first and
    fails (found by trying sets; the order is Spark's hash order); k = 2's set fits any order.
    Other partitions, and other rows of the same query, are fastwindow's."""
    values = ("(0, 1, 4611686018428071148), (1, 1, 4611686018427785959), "
              "(2, 1, -4611686018428214940), (3, 2, 5), (4, 2, 5), (5, 2, -3)")
    query = ("select id, sum(distinct v) over (partition by k) s, "
             "sum(distinct v) over (partition by k order by id) r, "
             f"avg(distinct v) over (partition by k) a from values {values} as data(id, k, v)")
    assert assert_same_outcome_with_ansi(spark, query) == "ARITHMETIC_OVERFLOW"
    rows = assert_same_as_spark(spark, query, ansi=False)
    assert {r["id"]: r["s"] for r in rows if r["id"] >= 3} == {3: 2, 4: 2, 5: 2}
    assert_same_as_spark(spark, query.replace("values (0, 1,", "values (0, 3,"), ansi=True)


def test_distinct_sums_of_wide_decimals_stay_on_spark(spark):
    """A decimal(38, 6) sum may overflow (Spark's null or error then depends on its set's order):
    left to Spark, with that reason, and the same rows."""
    assert_falls_back(spark, "select id, sum(distinct bigdec) over (partition by p order by id) s "
                             "from t", "decimals of more than 28 digits may overflow")


def test_count_distinct_types_and_nulls(spark):
    """The result is a non-null bigint, 0 over frames without values; over no input, no rows."""
    query = ("select id, count(distinct i) over (partition by p order by id rows between 1 "
             "following and 1 following) c, typeof(count(distinct s) over (partition by p)) t "
             "from t where p is null or p > 99")
    rows = assert_same_as_spark(spark, query)
    assert {r["t"] for r in rows} == {"bigint"}
    assert 0 in {r["c"] for r in rows}
    assert_same_as_spark(spark, "select id, count(distinct i, s) over (partition by p order by id) c "
                                "from empty_t", empty_input=True)


def test_duplicate_agnostic_aggregates_drop_distinct(spark):
    query = ("select id, max(distinct i) over w a, min(distinct s) over w b, "
             "bit_or(distinct i) over w c, bool_and(distinct bo) over w d, "
             "max(i) over w e, min(s) over w f from t "
             "window w as (partition by p order by g rows between 2 preceding and 1 following)")
    rows = assert_same_as_spark(spark, query)
    assert all(r["a"] == r["e"] and r["b"] == r["f"] for r in rows)


def test_other_distinct_aggregates_keep_sparks_error(spark):
    """Other DISTINCT window aggregates are not rewritten: Spark's analyzer rejects them with or
    without fastwindow, and the rewrite does not take maps (a set cannot hold them)."""
    for query in ("select stddev(distinct d) over (partition by p) from t",
                  "select count(distinct m) over (partition by p) from t"):
        for enabled in ("true", "false"):
            spark.conf.set(ENABLED, enabled)
            try:
                with pytest.raises(AnalysisException, match="DISTINCT_WINDOW_FUNCTION_UNSUPPORTED"):
                    spark.sql(query)
            finally:
                spark.conf.set(ENABLED, "true")


#: size(collect_set(x)) of every type fastwindow counts (floating values: see the next test).
SET_SIZES = ["i", "l", "s", "dec", "bigdec", "dt", "ts", "ntz", "bin", "bo", "arr", "st",
             "named_struct('a', i, 'b', s)", "cast(null as int)", "concat(s, 'x')"]


@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: f"{f[0]}[{f[1]},{f[2]}]")
def test_set_sizes_of_every_type_over_every_frame(spark, frame):
    w = frame_sql(frame)
    functions = [f"size(collect_set({x}) over ({w})) c{k}" for k, x in enumerate(SET_SIZES)]
    if WINDOW_FILTER:
        functions.append(f"size(collect_set(s) filter (where i > 0) over ({w})) c_filter")
    assert_same_as_spark(spark, f"select id, {', '.join(functions)} from t")


def test_set_sizes_of_floating_values(spark):
    """Spark 4.2+'s collect_set holds one NaN and one zero; earlier lines keep NaNs (and, in
    structs, -0.0 and 0.0) apart, so fastwindow leaves those sets to Spark, with that reason."""
    query = ("select id, size(collect_set(d) over (partition by p order by id rows between 3 "
             "preceding and 1 following)) a, size(collect_set(f) over (partition by p)) b, "
             "size(collect_set(named_struct('d', d)) over (partition by p order by g)) c from t")
    if SPARK_LINE >= (4, 2):
        assert_same_as_spark(spark, query)
    else:
        assert_falls_back(spark, query, "keeps NaNs")


def test_set_read_beyond_its_size_is_kept(spark):
    """Where the set itself is read too, the window computes both (the set on Spark, today)."""
    query = ("select id, size(collect_set(i) over w) n, array_sort(collect_set(i) over w) v "
             "from t window w as (partition by p order by id rows between 2 preceding and current row)")
    fast = run(spark, query, fastwindow_on=True)
    vanilla = run(spark, query, fastwindow_on=False)
    assert sorted(map(tuple, fast.rows)) == sorted(map(tuple, vanilla.rows))
    assert all(r["n"] == len(r["v"]) for r in fast.rows)


def test_sizes_in_windows_of_several_specs(spark):
    """The size moves into whichever window computes the set, through the windows and column
    pruning projections above it."""
    query = ("select id, size(collect_set(s) over (partition by p order by id rows between 1 "
             "preceding and 1 following)) a, count(distinct i) over (partition by p) b, "
             "size(collect_set(dt) over (partition by g)) c, row_number() over (order by id) d from t")
    assert_same_as_spark(spark, query)


@pytest.mark.skipif(SPARK_LINE < (4, 3), reason="collect_set ... RESPECT NULLS: Spark 4.3+")
def test_set_sizes_respecting_nulls(spark):
    query = ("select id, size(collect_set(i) respect nulls over (partition by p order by id rows "
             "between 2 preceding and current row)) a, size(collect_set(s) respect nulls over "
             "(partition by p)) b from t")
    assert_same_as_spark(spark, query)


def test_long_partitions_with_few_and_many_distinct_values(spark):
    query = ("select id, size(collect_set(id % 7) over (order by id rows between 500 preceding "
             "and current row)) a, count(distinct id % 1000, id % 3) over (order by id range "
             "between 300 preceding and 100 following) b, count(distinct cast(id as string)) over "
             "(order by id rows between current row and unbounded following) c "
             "from range(0, 3000, 1, 1)")
    assert_same_as_spark(spark, query)


#: collect_list of every type: the frame's values in row order, nulls left out.
LISTS = ["i", "s", "d", "dec", "dt", "ts", "bin", "arr", "st", "m", "cast(null as int)"]


@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: f"{f[0]}[{f[1]},{f[2]}]")
def test_collect_list_of_every_type_over_every_frame(spark, frame):
    w = frame_sql(frame)
    functions = [f"collect_list({x}) over ({w}) c{k}" for k, x in enumerate(LISTS)]
    functions.append(f"array_agg(l) over ({w}) c_agg")
    if WINDOW_FILTER:
        functions.append(f"collect_list(s) filter (where i > 0) over ({w}) c_filter")
    if SPARK_LINE >= (4, 3):
        functions.append(f"collect_list(i) respect nulls over ({w}) c_nulls")
    assert_same_as_spark(spark, f"select id, {', '.join(functions)} from t")


#: collect_set read as an array, of every type a set takes: Spark's own set over each frame in
#: order, so the element order (its hash set's) must be Spark's exactly.
SETS = ["i", "s", "d", "f", "dec", "dt", "ts", "bin", "arr", "st", "cast(null as int)"]
#: histogram_numeric's inputs, with few bins (values merge, in an order-dependent way) and many.
HISTOGRAMS = ["histogram_numeric(i, 3)", "histogram_numeric(d, 4)", "histogram_numeric(dec, 20)",
              "histogram_numeric(dt, 2)", "histogram_numeric(l, 5)"]


@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: f"{f[0]}[{f[1]},{f[2]}]")
def test_collect_set_arrays_and_histograms_over_every_frame(spark, frame):
    w = frame_sql(frame)
    functions = [f"collect_set({x}) over ({w}) c{k}" for k, x in enumerate(SETS)]
    functions += [f"{h} over ({w}) h{k}" for k, h in enumerate(HISTOGRAMS)]
    functions.append(f"row_number() over ({w.split(' rows ')[0].split(' range ')[0]}) rn")
    if WINDOW_FILTER:
        functions.append(f"collect_set(s) filter (where i > 0) over ({w}) c_filter")
    assert_same_as_spark(spark, f"select id, {', '.join(functions)} from t")


#: listagg / string_agg (Spark 4.0+): strings and binaries, default and other delimiters, nulls
#: skipped. (WITHIN GROUP takes no window ORDER BY or frame in Spark: tested over partitions.)
LISTAGGS = ["listagg(s)", "string_agg(s, ', ')", "listagg(bin, x'00')",
            "listagg(cast(i as string), '|')"]


@pytest.mark.skipif(SPARK_LINE < (4, 0), reason="listagg and string_agg are new in Spark 4.0")
def test_listagg_over_every_frame(spark):
    """Every frame of FRAMES in one query (column c<frame>_<function>)."""
    functions = []
    for f, frame in enumerate(FRAMES):
        w = frame_sql(frame)
        functions += [f"{a} over ({w}) c{f}_{k}" for k, a in enumerate(LISTAGGS)]
        if WINDOW_FILTER:
            functions.append(f"listagg(s, '-') filter (where i > 0) over ({w}) c{f}_filter")
    # WITHIN GROUP orders with ties (kept in row order) and nulls
    functions += ["listagg(cast(i as string), '|') within group (order by g desc) over "
                  "(partition by p) w0",
                  "string_agg(s) within group (order by s) over (partition by p) w1"]
    assert_same_as_spark(spark, f"select id, {', '.join(functions)} from t")


def test_collect_set_over_long_frames_keeps_spark_element_order(spark):
    """Sets of hundreds of values: their order is the hash set's, which grows and rehashes."""
    query = ("select id, collect_set(id % 97) over (order by id rows between 300 preceding and "
             "current row) a, collect_set(cast(id % 500 as string)) over (order by id) b, "
             "histogram_numeric(id % 101, 7) over (order by id rows between 200 preceding and "
             "10 following) h from range(0, 2000, 1, 1)")
    assert_same_as_spark(spark, query)
