"""Degenerate inputs against Spark: rows without columns, constant keys, one-row and empty input.

A window whose functions read no input column (``count(*) OVER (ORDER BY 1)``, ``lead(1)``,
ranking over a literal key) gets rows that carry no columns at all after pruning: zero-byte
UnsafeRows. Rows that wait for later ones (lead, peers of a RANGE frame, frames reaching forward)
must still be held and returned — a zero-width row once crashed the waiting queue. Each query over
5,000 rows runs streamed, buffered and with a waiting queue of one row (rows overflow into the
spillable buffer at once), over no row and one row in one of those ways, on the generated
evaluator, and must give Spark's answer on FastWindow.
"""

from __future__ import annotations

import pytest

from helpers import assert_same_as_spark
from query_shapes import in_turns

#: Tests run on the generated evaluator only (tests/conftest.py): the interpreted twin adds
#: nothing to them.
GENERATED_ONLY = pytest.mark.generated_only(
    "a window that reads no column has no ops to interpret; the subject is the operator over "
    "empty, one-row and columnless input in each execution mode.")

STREAMING = "spark.fastwindow.streaming.enabled"
MAX_PENDING = "spark.fastwindow.streaming.maxPendingRows"

MODES = [
    ("streaming", {}),
    ("buffered", {STREAMING: "false"}),
    ("overflowing", {MAX_PENDING: "1"}),
]

# Window functions that read no input column: every frame kind and every way of holding rows.
COLUMNLESS = {
    "running_range": "count(*) over (order by 1)",
    "running_rows": "count(*) over (order by 1 rows between unbounded preceding and current row)",
    "whole": "count(*) over ()",
    "moving_forward": "count(1) over (order by 1 rows between 1 preceding and 2 following)",
    "shrinking": "count(*) over (order by 1 rows between current row and unbounded following)",
    "range_offset": "count(*) over (order by 1 range between 1 preceding and 1 following)",
    "range_peers": "sum(2) over (order by 1 range between current row and unbounded following)",
    "lead": "lead(7, 2) over (order by 1)",
    "lag_default": "lag(7, 3, -1) over (order by 1)",
    "ranks": "rank() over (order by 1) + dense_rank() over (order by 1)",
    "sizes": "percent_rank() over (order by 1) + cume_dist() over (order by 1)",
    "ntile": "ntile(3) over (order by 1)",
    "row_number": "row_number() over (partition by 1 order by 1)",
    "nth_value": "nth_value(5, 2) over (order by 1 rows between 1 preceding and 1 following)",
}


def _with(spark, settings):
    for k, v in settings.items():
        spark.conf.set(k, v)


def _unset(spark, settings):
    for k in settings:
        spark.conf.unset(k)


#: 5,000 rows in each mode; no row and one row (nothing waits behind another, which is all the
#: modes hold differently) in one mode each, in turn.
COLUMNLESS_CASES = [(name, mode, 5000) for name in sorted(COLUMNLESS) for mode, _ in MODES] + [
    (name, mode, rows) for (name, rows), (mode,) in in_turns(
        [(name, rows) for name in sorted(COLUMNLESS) for rows in (0, 1)], [m for m, _ in MODES])]


@GENERATED_ONLY
@pytest.mark.parametrize("name,mode,rows", COLUMNLESS_CASES)
def test_windows_over_rows_without_columns(spark, mode, name, rows):
    settings = dict(MODES)[mode]
    _with(spark, settings)
    try:
        assert_same_as_spark(spark, f"select {COLUMNLESS[name]} as w from range({rows})",
                             empty_input=rows == 0)
    finally:
        _unset(spark, settings)


# The queries Spark's own test suites run that first found the crash, as they are written there.
SPARK_SUITE_QUERIES = [
    # SQLWindowFunctionSuite, SPARK-16633
    "select lag(123, 100, a) over (order by id), lead(123, 100, a) over (order by id) "
    "from (select 1 id, 2 a)",
    # typeCoercion/native/windowFrameCoercion.sql
    "select count(*) over (partition by 1 order by cast(1 as tinyint)) from range(3)",
    "select count(*) over (partition by 1 order by cast(1 as smallint)) from range(3)",
    "select count(*) over (partition by 1 order by cast(1 as decimal(10, 0))) from range(3)",
    "select count(*) over (partition by 1 order by cast('1' as binary)) from range(3)",
    "select count(*) over (partition by 1 order by cast(1 as tinyint) desc "
    "range between current row and 1 following) from range(3)",
    "select count(*) over (partition by 1 order by cast('2017-12-11 09:30:00' as timestamp) "
    "range between current row and interval 1 day following) from range(3)",
    "select count(*) over (partition by 1 order by cast('2017-12-11 09:30:00' as date) "
    "range between current row and 1 following) from range(3)",
    # A constant PARTITION BY and ORDER BY over real columns.
    "select id, sum(id) over (partition by 'x' order by 'y') s, "
    "lead(id) over (partition by null order by null) l from range(20)",
]


@pytest.mark.parametrize("mode", [m for m, _ in MODES])
@pytest.mark.parametrize("ansi", [False, True])
@pytest.mark.parametrize("query", SPARK_SUITE_QUERIES)
def test_constant_keys_and_one_row_inputs(spark, mode, ansi, query):
    settings = dict(MODES)[mode]
    _with(spark, settings)
    try:
        assert_same_as_spark(spark, query, ansi=ansi)
    finally:
        _unset(spark, settings)


@pytest.mark.parametrize("mode", [m for m, _ in MODES])
def test_one_row_partitions_and_all_null_keys(spark, mode):
    """Every partition has one row (tiny's pairs, singletons), or every key is null."""
    settings = dict(MODES)[mode]
    _with(spark, settings)
    try:
        assert_same_as_spark(
            spark,
            "select id, lead(id, 1) over (partition by id order by id) a, "
            "count(*) over (partition by id order by cast(null as int) range between current row "
            "and unbounded following) b, rank() over (partition by cast(null as int) "
            "order by cast(null as string)) c, lag(i, 2, 0) over (partition by p order by id) d "
            "from tiny")
    finally:
        _unset(spark, settings)
