"""Differential test helpers: Spark itself is the oracle.

``assert_same_as_spark`` runs a query with fastwindow on and off and asserts equal results *and*
that the plan ran where expected; ``assert_falls_back`` asserts that a query stays on Spark's
``WindowExec`` with a given reason; ``assert_same_error`` asserts that both sides fail alike.
"""

from __future__ import annotations

import contextlib

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import fastwindow
import pyspark
import pytest
from chispa.row_comparer import are_rows_equal_enhanced
from chispa.rows_comparer import assert_generic_rows_equality
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, Row, SparkSession

Query = Union[str, Callable[[SparkSession], DataFrame]]

ENABLED = "spark.fastwindow.enabled"

#: The Spark line under test (the suite runs on every line fastwindow supports; Spark itself is the
#: oracle, so what a line's analyzer accepts decides what is tested there).
SPARK_LINE = tuple(int(part) for part in pyspark.__version__.split(".")[:2])

#: FILTER (WHERE ...) on window aggregates: Spark's analyzer rejects it before 4.2.
WINDOW_FILTER = SPARK_LINE >= (4, 2)
needs_window_filter = pytest.mark.skipif(
    not WINDOW_FILTER, reason="Spark before 4.2 rejects FILTER (WHERE ...) on window aggregates "
                              "in its analyzer, with fastwindow on or off")


#: Spark before 4.0 may throw NullPointerException (in FrameLessOffsetWindowFunctionFrame.prepare)
#: for an IGNORE NULLS lead/lag whose default reads a column, depending on the partitions.
#: Fixed in Spark 4.0; fastwindow answers on every line.
OFFSET_IGNORE_NULLS_COLUMN_DEFAULT = SPARK_LINE >= (4, 0)


#: RANGE frames over a DATE key with a day-time interval offset: Spark's analyzer rejects them
#: before 4.0 (a DATE key takes integer day offsets there).
DATE_RANGE_DAY_INTERVAL = SPARK_LINE >= (4, 0)


def accepted(aggregates: Sequence[str]) -> List[str]:
    """The aggregate calls this Spark's analyzer accepts over a window (no FILTER before 4.2)."""
    return [a for a in aggregates if WINDOW_FILTER or " filter (where " not in a.lower()]


# The frames with one fixed algorithm each; tests combine them with their own sliding frames.
WHOLE = "rows between unbounded preceding and unbounded following"
RUNNING_ROWS = "rows between unbounded preceding and current row"
RUNNING_RANGE = "range between unbounded preceding and current row"


@dataclass
class Run:
    rows: List[Row]
    reports: List[Any]
    df: DataFrame

    @property
    def plan(self) -> str:
        """The executed plan as text: made when read (~45 ms a query; most tests never do)."""
        return self.df._jdf.queryExecution().executedPlan().toString()


def python_rows_view(spark: SparkSession, name: str, rows: Sequence[Any], schema: Any,
                     *, then: Callable[[DataFrame], DataFrame] = lambda df: df) -> None:
    """Registers rows made in Python as the view ``name``, in one partition (so the shuffle's row
    order, and hence the order of rows with equal ORDER BY keys, is the same in every run) and
    held in the JVM (a local checkpoint): a query then reads them from Spark's block manager
    rather than through a Python worker, which took ~150 ms of each query run. ``then`` applies
    what the view adds on top (a filter the optimizer must not see through)."""
    held = spark.createDataFrame(rows, schema).coalesce(1).localCheckpoint()
    then(held).createOrReplaceTempView(name)


def _dataframe(spark: SparkSession, query: Query) -> DataFrame:
    return spark.sql(query) if isinstance(query, str) else query(spark)


def run(spark: SparkSession, query: Query, *, fastwindow_on: bool) -> Run:
    """Plans and collects ``query`` with fastwindow switched on or off."""
    spark.conf.set(ENABLED, "true" if fastwindow_on else "false")
    try:
        df = _dataframe(spark, query)
        rows = df.collect()
        reports = fastwindow.explain(df)
    finally:
        spark.conf.set(ENABLED, "true")
    return Run(rows, reports, df)


def _canonical(value: Any) -> Any:
    """A sortable, NaN-aware stand-in for a result value (for ordering rows only). The common
    types are tested first by exact type: the suite orders millions of values."""
    kind = type(value)
    if value is None:
        return (0,)
    if kind is int or kind is Decimal:
        return (2, float(value), str(value))
    if kind is float:
        return (1, "nan") if value != value else (2, value)
    if kind is str:
        return (6, "str", value)
    if isinstance(value, bool):
        return (6, "bool", repr(value))
    if isinstance(value, float):
        return (1, "nan") if math.isnan(value) else (2, value)
    if isinstance(value, (int, Decimal)):
        return (2, float(value), str(value))
    if isinstance(value, Row):
        return (3, tuple(_canonical(v) for v in value))
    if isinstance(value, (list, tuple)):
        return (4, tuple(_canonical(v) for v in value))
    if isinstance(value, dict):
        return (5, tuple(sorted((repr(k), repr(_canonical(v))) for k, v in value.items())))
    return (6, type(value).__name__, repr(value))


def _row_key(row: Sequence[Any]) -> Any:
    # A tuple of tagged tuples: two values of different kinds differ in their first element, so
    # any two keys compare without a TypeError.
    return tuple(_canonical(v) for v in row)


def _sorted(rows: Sequence[Row]) -> List[Row]:
    return sorted(rows, key=_row_key)


def _same(a: Any, b: Any) -> bool:
    """Exact equality where NaN equals NaN and -0.0 differs from 0.0, recursively."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _same_values(a: tuple, b: tuple) -> bool:
    """_same for two rows' values, with a fast path for values equal by == of one simple type
    (no float there: NaN and -0.0 need _same)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        kind = type(x)
        if kind is type(y) and (kind is int or kind is str or x is None) and x == y:
            continue
        if not _same(x, y):
            return False
    return True


def assert_rows_equal(actual: Sequence[Row], expected: Sequence[Row]) -> None:
    """Row-order-insensitive, exact comparison (NaN equals NaN, -0.0 differs from 0.0, types
    must match), with chispa's diff output on failure."""
    a, e = _sorted(actual), _sorted(expected)
    if len(a) == len(e) and all(_same_values(tuple(x), tuple(y)) for x, y in zip(a, e)):
        return
    # Only on failure: chispa's table of the differing rows (it formats every row it compares).
    assert_generic_rows_equality(a, e, are_rows_equal_enhanced, {"allow_nan_equality": True})
    assert len(a) == len(e), f"{len(a)} rows with fastwindow, {len(e)} without"
    for x, y in zip(a, e):
        assert _same(tuple(x), tuple(y)), f"fastwindow: {x}\nspark:      {y}"


def assert_rows_close(actual: Sequence[Row], expected: Sequence[Row], key: str,
                      tolerances: Dict[str, str], rel_tol: float) -> None:
    """Compares rows matched by ``key``: columns named in ``tolerances`` may differ by
    ``rel_tol`` times the expected row's value of the named scale column (e.g. the sum of |x| over
    the frame); NaN must match NaN and other columns must be exactly equal."""
    assert len(actual) == len(expected), f"{len(actual)} rows with fastwindow, {len(expected)} without"
    if not actual:
        return
    # By position: a Row's lookup by name searches its fields, per value.
    fields = list(actual[0].__fields__)
    at = {column: k for k, column in enumerate(fields)}
    by_key = {r[at[key]]: r for r in expected}
    for row in actual:
        a, e = tuple(row), tuple(by_key[row[at[key]]])
        for k, column in enumerate(fields):
            x, y = a[k], e[k]
            if column in tolerances and isinstance(x, float) and isinstance(y, float) \
                    and not (math.isnan(x) or math.isnan(y)) and x != y:
                scale = e[at[tolerances[column]]]
                assert abs(x - y) <= rel_tol * scale, (
                    f"{column}: fastwindow {x!r}, spark {y!r}, allowed {rel_tol} * {scale!r}\n{a}")
            else:
                assert _same(x, y), f"{column}: fastwindow {x!r}, spark {y!r}\nfastwindow: {a}\nspark: {e}"


#: The top-k per group operators below a window filtered by a rank (fastwindow's, Spark's).
GROUP_LIMITS = ("FastGroupLimit", "WindowGroupLimit")


def run_both(spark: SparkSession, query: Query, *, ansi: Optional[bool] = None) -> "tuple[Run, Run]":
    """Runs ``query`` with fastwindow on, then off, with ANSI mode set for both if given."""
    if ansi is not None:
        spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
    try:
        return run(spark, query, fastwindow_on=True), run(spark, query, fastwindow_on=False)
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


def assert_same_as_spark(spark: SparkSession, query: Query, *, expect: str = "FastWindow",
                         ansi: Optional[bool] = None, empty_input: bool = False,
                         key: str = "id", tolerances: Optional[Dict[str, str]] = None,
                         rel_tol: float = 1e-12) -> List[Row]:
    """Runs ``query`` with fastwindow on and off and asserts identical results.

    ``expect="FastWindow"`` also asserts that every window operator of the fastwindow run is
    ``FastWindow``; ``expect="Window"`` that all of them stayed on Spark. With ``empty_input``,
    adaptive execution may drop the window operator altogether once it sees the input is empty, so
    a plan without window operators is accepted. ``tolerances`` maps float columns to the column
    that scales their allowed error (see :func:`assert_rows_close`). Returns the rows.
    """
    fast, vanilla = run_both(spark, query, ansi=ansi)
    return assert_runs_agree(fast, vanilla, expect=expect, empty_input=empty_input, key=key,
                             tolerances=tolerances, rel_tol=rel_tol)


def assert_runs_agree(fast: Run, vanilla: Run, *, expect: str = "FastWindow",
                      empty_input: bool = False, key: str = "id",
                      tolerances: Optional[Dict[str, str]] = None,
                      rel_tol: float = 1e-12) -> List[Row]:
    """assert_same_as_spark's checks of two runs made already; returns the fastwindow rows."""
    assert fast.reports or empty_input, f"the plan has no window operator:\n{fast.plan}"
    windows = [r for r in fast.reports if r.operator not in GROUP_LIMITS]
    limits = [r for r in fast.reports if r.operator in GROUP_LIMITS]
    if expect == "FastWindow":
        assert all(r.fastwindow for r in limits), (
            "a top-k per group stayed on Spark:\n" + "\n".join(str(r) for r in limits))
    operators = {r.operator for r in windows}
    assert operators == {expect} or (empty_input and not operators), (
        f"expected every window operator to be {expect}, got:\n"
        + "\n".join(str(r) for r in fast.reports))
    assert all(not r.fastwindow for r in vanilla.reports), "fastwindow ran while disabled"
    if tolerances:
        assert_rows_close(fast.rows, vanilla.rows, key, tolerances, rel_tol)
    else:
        assert_rows_equal(fast.rows, vanilla.rows)
    return fast.rows


def assert_float_sums_close(spark: SparkSession, x: str, window: str) -> None:
    """sum and avg of the float column ``x`` over ``window`` (a window spec) match Spark within
    the sliding-frame tolerance: 1e-12 times the frame's sum of |x| (divided by the count for
    the average). The scale columns are float sums themselves, so they get the same tolerance."""
    w = f"over ({window})"
    query = (f"select p, id, sum({x}) {w} s, avg({x}) {w} a, "
             f"sum(abs(cast({x} as double))) {w} scale, "
             f"sum(abs(cast({x} as double))) {w} / greatest(count({x}) {w}, 1) avg_scale from t")
    assert_same_as_spark(spark, query, tolerances={
        "s": "scale", "a": "avg_scale", "scale": "scale", "avg_scale": "avg_scale"})


def assert_falls_back(spark: SparkSession, query: Query, reason: str) -> None:
    """Asserts that ``query`` runs on Spark's Window with a reason containing ``reason``, and that
    its results are Spark's."""
    fast = run(spark, query, fastwindow_on=True)
    vanilla = run(spark, query, fastwindow_on=False)
    spark_nodes = [r for r in fast.reports if not r.fastwindow]
    assert spark_nodes, f"expected a fallback, but every window ran on fastwindow:\n{fast.plan}"
    reasons = [r.reason or "" for r in spark_nodes]
    assert any(reason in r for r in reasons), f"no reason contains {reason!r}: {reasons}"
    assert_rows_equal(fast.rows, vanilla.rows)


@dataclass(frozen=True)
class SparkError:
    """A query's failure as Spark reports it: its error condition and message parameters."""
    condition: Optional[str]
    parameters: Dict[str, str]
    text: str


def _spark_error(error: Exception) -> Optional[SparkError]:
    if isinstance(error, PySparkException):
        # getCondition from pyspark 4.0 on; getErrorClass before.
        get = getattr(error, "getCondition", None) or error.getErrorClass
        return SparkError(get(), dict(error.getMessageParameters() or {}), str(error))
    # pyspark before 4.0 leaves errors raised in tasks as Py4JJavaError: the SparkThrowable with
    # the condition is in the cause chain of the Java exception.
    java = getattr(error, "java_exception", None)
    while java is not None:
        try:
            condition = java.getErrorClass()
        except Exception:  # noqa: BLE001 - not a SparkThrowable
            condition = None
        if condition:
            return SparkError(condition, dict(java.getMessageParameters()), str(java))
        if java.getCause() is None:
            # No condition anywhere (Spark's own `ArithmeticException("long overflow")` from a
            # timestamp's addition, say): the innermost exception's class and message.
            root = f"{java.getClass().getName()}: {java.getMessage()}"
            return SparkError(None, {"exception": root}, str(java))
        java = java.getCause()
    return None


def _error_of(spark: SparkSession, query: Query, fastwindow_on: bool) -> SparkError:
    spark.conf.set(ENABLED, "true" if fastwindow_on else "false")
    try:
        df = _dataframe(spark, query)
        if fastwindow_on:
            ops = {r.operator for r in fastwindow.explain(df)}
            assert ops == {"FastWindow"}, f"expected FastWindow, got {ops}"
        try:
            df.collect()
        except Exception as e:  # noqa: BLE001 - classified below
            error = _spark_error(e)
            if error is None:
                raise
            return error
        raise AssertionError(f"expected an error (fastwindow {'on' if fastwindow_on else 'off'})")
    finally:
        spark.conf.set(ENABLED, "true")


def assert_same_outcome_with_ansi(spark: SparkSession, query: Query) -> Optional[str]:
    """With ANSI mode on: where Spark fails, fastwindow must fail with the same error (returned);
    where Spark succeeds, the results must be the same (None is returned)."""
    vanilla = spark_run_with_ansi(spark, query, True)
    if vanilla is None:
        return assert_same_error(spark, query, ansi=True)
    with session_confs(spark, {"spark.sql.ansi.enabled": "true"}):
        fast = run(spark, query, fastwindow_on=True)
    assert_runs_agree(fast, vanilla)
    return None


def spark_run_with_ansi(spark: SparkSession, query: Query, ansi: bool) -> Optional[Run]:
    """Spark's run of ``query`` with ANSI mode set, or None where Spark fails (the outcome the
    caller then asks fastwindow to reproduce); its rows serve as the expected ones."""
    with session_confs(spark, {"spark.sql.ansi.enabled": str(ansi).lower()}):
        try:
            return run(spark, query, fastwindow_on=False)
        except Exception:  # noqa: BLE001 - any failure of Spark's is the outcome to reproduce
            return None


def assert_same_error(spark: SparkSession, query: Query, *, ansi: bool = True) -> str:
    """Asserts that both sides fail with the same error condition and parameters."""
    spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
    try:
        fast = _error_of(spark, query, True)
        vanilla = _error_of(spark, query, False)
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")
    assert fast.condition == vanilla.condition, (fast, vanilla)
    assert fast.parameters == vanilla.parameters, (fast, vanilla)
    return fast.condition


@contextlib.contextmanager
def session_confs(spark: SparkSession, confs: Dict[str, str]):
    """Sets Spark settings for a block, restoring the session's own values afterwards (also when
    it fails): unset, or the value the session was started with (tests/conftest.py)."""
    before = {key: spark.conf.get(key, None) for key in confs}
    for key, value in confs.items():
        spark.conf.set(key, value)
    try:
        yield spark
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)
