"""covar_pop, covar_samp, corr and the regr_* family over every frame, against Spark.

They came in as one registry line each (``AggregateFamily.rules``) and run with Spark's own
expressions: exact over whole and running frames (Spark's order, row by row). Over sliding ROWS
and RANGE frames the two stacks merge partial co-moments where Spark updates row by row, so they
may differ in the last bits: the tests allow 1e-9 times max(1, |Spark's value|) on data whose
values are not nearly constant (where these statistics are ill-conditioned in any algorithm);
NaN, null and infinity must match exactly (frames with a non-finite or huge value are recomputed
row by row). regr_count and regr_avgx/avgy are Spark's rewrites into count and avg.

With ANSI mode on, Spark 4.0's corr divides by zero over a frame whose values do not vary (a
DIVIDE_BY_ZERO error; later lines return null): there fastwindow must fail with the same error.
"""

from __future__ import annotations

import pytest

from helpers import (accepted, assert_same_as_spark, assert_same_error,
                     assert_same_outcome_with_ansi, session_confs, spark_run_with_ansi)
from test_moments_and_bits import EXACT_FRAMES, RANGE, SLIDING, assert_close, select

COMOMENTS = accepted([
    "covar_pop(d, i)", "covar_samp(l, f)", "corr(i, dec)", "corr(d, l)", "regr_r2(i, d)",
    "regr_slope(l, i)", "regr_intercept(f, sh)", "regr_sxy(d, by)", "regr_sxx(i, l)",
    "regr_syy(f, d)", "regr_count(i, d)", "regr_avgx(l, i)", "regr_avgy(dec, f)",
    "covar_samp(i, l) filter (where bo)"])


@pytest.mark.parametrize("frame", EXACT_FRAMES)
def test_comoments_exact_over_whole_and_running_frames(spark, frame):
    query = select(COMOMENTS, frame)
    assert_same_as_spark(spark, query, ansi=False)
    assert_same_outcome_with_ansi(spark, query)


def assert_close_with_and_without_ansi(spark, query):
    """Within tolerance with ANSI off; with it on, Spark's error where Spark fails."""
    for ansi in (False, True):
        vanilla = spark_run_with_ansi(spark, query, ansi)
        if vanilla is None:
            assert_same_error(spark, query, ansi=ansi)
            continue
        with session_confs(spark, {"spark.sql.ansi.enabled": str(ansi).lower()}):
            assert_close(spark, query, vanilla=vanilla)


@pytest.mark.parametrize("frame", SLIDING + RANGE)
def test_comoments_sliding_frames_within_tolerance(spark, frame):
    """t.d has NaN, +-inf and +-1e308 (those frames are recomputed row by row)."""
    assert_close_with_and_without_ansi(spark, select(COMOMENTS, frame))


def test_comoments_long_partitions(spark):
    query = """
        select p, id, covar_samp(x, y) over w c, corr(x, y) over w r, regr_slope(y, x) over w s,
               regr_intercept(y, x) over w i, regr_r2(y, x) over w r2
        from (select id % 3 as p, id, case when id % 17 = 0 then null
                                           else cast((id * 7919) % 1000 - 500 as double) / 7 end x,
                     cast((id * 104729) % 997 as double) / 3 + id % 5 y
              from range(6000))
        window w as (partition by p order by id rows between 40 preceding and 10 following)"""
    assert_close_with_and_without_ansi(spark, query)
