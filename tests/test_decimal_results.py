"""Decimal sums and averages whose result does not fit its type, over every frame kind.

``avg`` of ``decimal(p, s)`` is ``decimal(p + 4, s + 4)`` (bounded at 38 digits) while its sum
is ``decimal(p + 10, s)``: from p = 35 on, a frame's sum can fit where its average does not.
Spark's result step then raises NUMERIC_VALUE_OUT_OF_RANGE under ANSI and gives null with ANSI
off and for ``try_avg``. Sliding frames combine a LEGACY copy of the aggregate (no order of the
partial sums may raise), and must still end with the aggregate's own result step. Each case is
checked on every frame kind, with and without PARTITION BY, ANSI on and off, and across tasks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

import pytest

from helpers import (assert_same_as_spark, assert_same_error, assert_same_outcome_with_ansi,
                     session_confs)
from test_across_tasks import ACROSS_TASKS, SPREADING, _spread


@dataclass(frozen=True)
class Case:
    """A decimal column of ids 1 to 7 (``base`` times the id), with ``huge`` at the ids in
    ``at`` (all odd: one partition of ``p = id % 2``, so a failing query fails in one task)."""
    precision: int
    scale: int
    huge: str
    at: Tuple[int, ...] = (3,)
    base: str = "1"
    avg_overflows: bool = True
    sum_overflows: bool = False

    @property
    def column(self) -> str:
        kind = "sum" if self.sum_overflows else "avg" if self.avg_overflows else "fits"
        return f"d{self.precision}_{self.scale}_{kind}"

    @property
    def expression(self) -> str:
        t = f"decimal({self.precision},{self.scale})"
        ids = ", ".join(str(i) for i in self.at)
        return (f"case when id in ({ids}) then cast('{self.huge}' as {t}) "
                f"else cast(cast('{self.base}' as {t}) * id as {t}) end as {self.column}")


CASES = [
    # decimal(38,2): sums to 1e36, averages (decimal(38,6)) to 1e32 (the case)
    Case(38, 2, "1e31", avg_overflows=False),
    Case(38, 2, "4e35"),
    Case(38, 2, "6e35", at=(3, 5), sum_overflows=True),
    # decimal(38,0): averages are decimal(38,4), to 1e34
    Case(38, 0, "9e35"),
    # decimal(35,0) and (36,2): the first precisions whose averages can overflow
    Case(35, 0, "9e34"),
    Case(36, 2, "9e33"),
    # decimal(38,36): averages are decimal(38,38), below 1; sums below 100
    Case(38, 36, "9", base="0.1"),
    Case(38, 36, "60", at=(3, 5), base="0.1", sum_overflows=True),
    # decimal(10,2): nothing overflows
    Case(10, 2, "99999999.99", avg_overflows=False),
]
PARTITIONED = {c.column for c in CASES if (c.precision, c.scale) == (38, 2)}

FRAMES = {
    "moving-preceding": "order by id rows between 2 preceding and current row",
    "moving-following": "order by id rows between current row and 2 following",
    "shrinking-rows": "order by id rows between current row and unbounded following",
    "shrinking-range": "order by id range between current row and unbounded following",
    "range-offset": "order by id range between 2 preceding and current row",
    "running": "order by id",
    "whole": "",
}


@pytest.fixture(scope="module")
def decs(spark_session):
    columns = ",\n".join(c.expression for c in CASES)
    spark_session.sql(f"""create or replace temporary view decs as
                          select id, id % 2 as p, {columns} from range(1, 8, 1, 2)""")
    return spark_session


def _over(frame: str, partitioned: bool) -> str:
    return f"over ({'partition by p ' if partitioned else ''}{FRAMES[frame]})"


def _partitionings(case: Case):
    return [False, True] if case.column in PARTITIONED else [False]


def _functions(case: Case):
    """avg everywhere; sum where it overflows, or fits beside an average that does not."""
    return ["avg", "sum"] if case.sum_overflows or case.column == "d38_2_avg" else ["avg"]


def _ansi_runs(cases):
    runs = [(case, f, frame, partitioned) for case in cases for f in _functions(case)
            for frame in FRAMES for partitioned in _partitionings(case)]
    return pytest.mark.parametrize(
        "case,function,frame,partitioned", runs,
        ids=[f"{c.column}-{f}-{fr}{'-by-p' if p else ''}" for c, f, fr, p in runs])


@_ansi_runs([c for c in CASES if c.column in PARTITIONED])
def test_ansi_raises_where_spark_raises(decs, spark, case, function, frame, partitioned):
    """Under ANSI: Spark's error (condition and parameters: the value, its precision and scale)
    exactly where Spark raises it, else Spark's rows; which of the two is known for each case.
    decimal(38,2) here, with and without PARTITION BY (every Spark line runs it); the other
    precisions below."""
    _assert_ansi_outcome(spark, case, function, frame, partitioned)


@_ansi_runs([c for c in CASES if c.column not in PARTITIONED])
def test_ansi_raises_at_other_precisions(decs, spark, case, function, frame, partitioned):
    _assert_ansi_outcome(spark, case, function, frame, partitioned)


def _assert_ansi_outcome(spark, case, function, frame, partitioned):
    query = f"select id, {function}({case.column}) {_over(frame, partitioned)} r from decs"
    error = assert_same_outcome_with_ansi(spark, query)
    fails = case.sum_overflows or (function == "avg" and case.avg_overflows)
    assert (error is not None) == fails, (query, error)
    if fails:
        assert error.split(".")[0] in ("NUMERIC_VALUE_OUT_OF_RANGE", "ARITHMETIC_OVERFLOW"), error


@pytest.mark.parametrize("ansi", [False, True], ids=["ansi-off", "ansi-on"])
@pytest.mark.parametrize("case", CASES, ids=[c.column for c in CASES])
def test_nulls_where_spark_gives_nulls(decs, spark, case, ansi):
    """try_avg and try_sum in both modes, and avg and sum with ANSI off, over every frame kind in
    one query: Spark's nulls where a frame's result (or sum) does not fit, its values elsewhere."""
    functions = ["try_avg", "try_sum"] + ([] if ansi else ["avg", "sum"])
    calls = [f"{f}({case.column}) {_over(frame, partitioned)} {f}_{k}_{int(partitioned)}"
             for f in functions for k, frame in enumerate(FRAMES)
             for partitioned in _partitionings(case)]
    rows = assert_same_as_spark(spark, f"select id, {', '.join(calls)} from decs", ansi=ansi)
    averages = [v for row in rows for k, v in row.asDict().items() if k.startswith("try_avg")]
    assert (None in averages) == (case.avg_overflows or case.sum_overflows), averages
    assert any(v is not None for v in averages), averages


# -- the same frames across tasks ---------------------------------------------------------------

#: Frames whose ranges run across tasks with a decimal(38,2) average (frames shrinking to the end
#: keep one task for decimals of more than 28 digits: where their partial sums overflow depends on
#: the order; their errors are checked all the same).
SPREAD = ["moving-preceding", "moving-following", "range-offset"]
ACROSS = SPREAD + ["shrinking-rows", "shrinking-range"]


@pytest.fixture(scope="module")
def wide_decs(spark_session):
    """3,000 rows of decimal(38,2): 4e35 at id 0, the id elsewhere. Only frames holding the first
    row overflow their average (the sum of all rows' averages 1.3e32 > 1e32 only with it), all in
    the first range: the first frame to fail is the same in one task and across tasks."""
    spark_session.sql("""create or replace temporary view wide_decs as
        select id, case when id = 0 then cast('4e35' as decimal(38,2))
                        else cast(id as decimal(38,2)) end as d
        from range(0, 3000, 1, 3)""")
    return spark_session


@SPREADING
@pytest.mark.parametrize("frame", ACROSS)
def test_across_tasks_ansi_raises_where_spark_raises(wide_decs, spark, frame):
    query = f"select id, avg(d) {_over(frame, False)} a from wide_decs"
    with session_confs(spark, {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "3",
                               "spark.sql.adaptive.coalescePartitions.enabled": "false"}):
        condition = assert_same_error(spark, query, ansi=True)
    assert condition.split(".")[0] == "NUMERIC_VALUE_OUT_OF_RANGE"


@SPREADING
@pytest.mark.parametrize("frame", SPREAD)
def test_across_tasks_nulls_where_spark_gives_nulls(wide_decs, spark, frame):
    _spread(spark, f"select id, avg(d) {_over(frame, False)} a, try_avg(d) {_over(frame, False)} t"
                   " from wide_decs", 3, ansi=False)
