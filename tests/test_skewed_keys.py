"""Windows with PARTITION BY whose skewed keys are spread over tasks, against Spark.

Spark gives each PARTITION BY key one task, so a key that holds a large share of the rows makes
its task the stage's last. fastwindow (``spark.fastwindow.acrossTasks.skewedKeys``) samples the
keys at run time, splits the rows of each key holding a quarter of a task's share into ranges of
its ORDER BY keys over every task (summarised and seeded as a window without PARTITION BY is),
and hashes the other keys' rows to their tasks whole. Every query here must give Spark's rows
with its skewed keys split (``numSkewedKeys``); those where it must not be taken, Spark's plan.
"""

from __future__ import annotations

import pytest

from helpers import assert_same_as_spark, assert_same_error, run, session_confs

SPREADING = pytest.mark.generated_only(
    "the subject is how a skewed key is split over tasks, the same Scala on both evaluators; "
    "each kind of function runs on both in test_each_kind_of_function_over_skewed_keys")

SKEWED = {
    "spark.fastwindow.acrossTasks.enabled": "true",
    "spark.fastwindow.acrossTasks.skewedKeys": "true",
    "spark.fastwindow.acrossTasks.skewedKeys.minInputSize": "0",  # the test inputs are small
    "spark.sql.shuffle.partitions": "5",
    "spark.sql.adaptive.coalescePartitions.enabled": "false",
}


def _split(spark, query: str, *, skewed_keys: int, confs=None, ansi=None, summary_reads=None,
           tolerances=None) -> None:
    """``query`` gives Spark's rows, each FastWindow of it planned with skewed keys split over
    ranges, and ``skewed_keys`` of them found at run time; the map tasks summarise them unless
    ``summary_reads`` says otherwise (by default none, and for a window
    with dense_rank at most one: its ranges' distinct ORDER BY values are counted by the map tasks
    when its rows reach them in order, else by a second read)."""
    with session_confs(spark, {**SKEWED, **(confs or {})}):
        assert_same_as_spark(spark, query, ansi=ansi, tolerances=tolerances)
        fast = run(spark, query, fastwindow_on=True)
    for report in fast.reports:
        assert "skewed keys' rows split" in (report.note or ""), report
        metrics = dict(report.metrics)
        assert metrics.get("numSkewedKeys", 0) == skewed_keys, report
        # Each row once (twice below another window split over ranges, whose sample reads it).
        assert metrics.get("numOutputRows") in (len(fast.rows), 2 * len(fast.rows)), report
        counted = any("dense_rank" in e.lower() for e in report.window_expressions)
        reads = [summary_reads] if summary_reads is not None else [0, 1] if counted else [0]
        assert metrics.get("numSummaryReads", 0) in reads, report
    assert len(fast.rows) in [dict(report.metrics).get("numOutputRows") for report in fast.reports]


@pytest.fixture(scope="module")
def skewed(spark_session):
    """3,000 rows: ``k`` NULL for a third of them and 'hot' for a third (the skewed keys, at 5
    tasks), the rest over 41 keys; ``o`` with ties; ``v`` integral; ``x`` with NULLs and NaNs."""
    spark_session.sql("""
        create or replace temporary view skewed as
        select case when id % 3 = 0 then null
                    when id % 3 = 1 then 'hot'
                    else concat('k', id % 41) end as k,
               (id * 7919) % 500 as o,
               (id * 104729) % 1000 - 500 as v,
               case when id % 17 = 0 then null
                    when id % 29 = 0 then cast('NaN' as double)
                    else cast((id * 7919) % 1000 as double) / 8 end as x,
               id
        from range(0, 3000, 1, 3)""")
    return spark_session


# One window specification per query (windows with the same PARTITION BY stacked on each other
# share Spark's shuffle, and are not split: see test_not_split).
FUNCTIONS = {
    # ties of o cross the ranges' bounds: rank, RANGE frames, cume_dist count peers
    "seeded-ties": """rank() over w rk, percent_rank() over w pr, cume_dist() over w cd,
                      dense_rank() over w dr, sum(v) over w s, count(x) over w c,
                      min(v) over w mn, sum(v) over (partition by k order by o rows between
                                                    unbounded preceding and unbounded following) t
                      from skewed window w as (partition by k order by o)""",
    "seeded-desc": """row_number() over w rn, ntile(7) over w nt, max(v) over w mx,
                      avg(v) over w a, last(case when id % 97 = 3 then v end, true) over w fill
                      from skewed window w as (partition by k order by x desc nulls last, id)""",
    # the states of the rows after a range, per key (what remains from each row to the key's end)
    "seeded-shrinking": """count(x) over r c, max(v) over r mx, min(o) over r mn, avg(v) over r a
                           from skewed window r as (partition by k order by o
                                                    range between current row and unbounded following)""",
    "halo": """lag(v) over w l, lead(x, 3, -1.0) over w ld, lag(v, 40) over w l40,
               sum(v) over (partition by k order by o desc, id
                            rows between 5 preceding and 2 following) ms,
               percentile(v, 0.5) over (partition by k order by o desc, id
                                        rows between 3 preceding and 3 following) med
               from skewed window w as (partition by k order by o desc, id)""",
    # the nearest rows with a value, per key, however many ranges back or ahead
    "halo-ignore-nulls": """lag(case when id % 211 = 5 then v end) ignore nulls over w l,
                            lead(x, 2) ignore nulls over w ld, first_value(x) over w f
                            from skewed window w as (partition by k order by o, id)""",
}


@pytest.mark.parametrize("functions", FUNCTIONS.values(), ids=FUNCTIONS.keys())
def test_each_kind_of_function_over_skewed_keys(skewed, spark, functions):
    _split(spark, f"select id, {functions}", skewed_keys=2)


@SPREADING
def test_dense_rank_of_keys_in_order_counted_by_the_map_tasks(skewed, spark):
    """Each skewed key's rows reach the map tasks in id order: their distinct values are counted
    there, no second read."""
    _split(spark, "select id, dense_rank() over (partition by k order by id div 3) d from skewed",
           skewed_keys=2, summary_reads=0)


@SPREADING
@pytest.mark.parametrize("ansi", [True, False])
def test_halo_and_seeded_operators_over_the_same_split(skewed, spark, ansi):
    """One window with both kinds: a halo operator below a seeded one, over one shuffle."""
    _split(spark, """select id, lead(v) over w ld, row_number() over w rn, sum(v) over w s,
                            avg(x) over (partition by k order by o, id
                                         rows between 4 preceding and 2 following) a
                     from skewed window w as (partition by k order by o, id)""",
           skewed_keys=2, ansi=ansi, tolerances={"a": "a"})


@SPREADING
@pytest.mark.parametrize("confs", [{"spark.sql.adaptive.enabled": "false"},
                                   {"spark.sql.adaptive.coalescePartitions.enabled": "true",
                                    "spark.sql.adaptive.advisoryPartitionSizeInBytes": "20k"}],
                         ids=["adaptive-off", "coalesced"])
def test_adaptive_execution_off_and_coalescing(skewed, spark, confs):
    """Without adaptive execution the map stage runs before the summaries are read; coalesced
    tasks read several ranges of a skewed key each."""
    query = """select id, row_number() over w rn, lag(v, 2) over w l, sum(v) over w s
               from skewed window w as (partition by k order by o, id)"""
    with session_confs(spark, {**SKEWED, **confs}):
        assert_same_as_spark(spark, query)
        fast = run(spark, query, fastwindow_on=True)
    assert all("skewed keys' rows split" in (r.note or "") for r in fast.reports), fast.reports


@SPREADING
def test_summaries_from_the_shuffle_past_the_map_side_cap(skewed, spark):
    """3 map tasks x 64 ranges x 2,201 entries (a count, 2,200 halo rows) for one key are more
    than the map tasks send: only the largest key is split (of the 43 holding a quarter of a
    task's share at 64 tasks), its ranges summarised from the shuffle's output instead."""
    _split(spark, """select id, lag(v, 1100) over w l, lead(x, 1100) over w r
                     from skewed window w as (partition by k order by o, id)""",
           skewed_keys=1, summary_reads=1,
           confs={"spark.sql.shuffle.partitions": "64",
                  "spark.fastwindow.acrossTasks.maxHaloRows": "1100"})


@SPREADING
def test_no_skewed_key(spark_session, spark):
    """Keys of 30 rows each: none is split, every key goes to its task whole."""
    query = """select id, row_number() over w rn, lag(id) over w l, sum(id) over w s
               from range(0, 3000, 1, 3) window w as (partition by id % 100 order by id desc)"""
    _split(spark, query, skewed_keys=0)


@SPREADING
def test_skewed_sums_that_overflow_in_a_range_but_not_in_order(spark_session, spark):
    """Under ANSI, a skewed key whose rows overflow a long when added in shuffle order but not
    in the window's order: its states are folded in the window's order, as Spark adds them."""
    spark.sql("""
        create or replace temporary view swings as
        select if(id % 10 = 0, id, 0) as k,
               case when id < 300 then 2 * id else 2 * (id - 300) + 1 end as o,
               case when id < 300 then 4000000000000000000 else -4000000000000000000 end as v,
               id
        from range(600)""")
    _split(spark, "select id, sum(v) over (partition by k order by o) s from swings",
           skewed_keys=1, confs={"spark.sql.shuffle.partitions": "3"}, ansi=True)
    with session_confs(spark, {**SKEWED, "spark.sql.shuffle.partitions": "3"}):
        condition = assert_same_error(spark, """select sum(id * 4000000000000000)
            over (partition by id % 7 = 0 order by id) from range(3000)""")
    assert condition == "ARITHMETIC_OVERFLOW"


@pytest.mark.parametrize("query", [
    # a window above with the same PARTITION BY: Spark shuffles once for both
    """select id, rn, sum(v) over (partition by k) t from
       (select id, k, v, row_number() over (partition by k order by o, id) rn from skewed)""",
    # functions a window without PARTITION BY keeps in one task
    "select id, min(x) over (partition by k order by o) f from skewed",
    # its ranges may have to run in one task at run time (a guarded sum near overflow), which a
    # skewed key's ranges, sharing their tasks with other keys, cannot
    "select id, sum(cast(v as decimal(12, 0))) over (partition by k order by o rows between "
    "current row and unbounded following) s from skewed",
], ids=["shares-partition-by", "min-of-doubles", "shrinking"])
@SPREADING
def test_not_split(skewed, spark, query):
    with session_confs(spark, SKEWED):
        assert_same_as_spark(spark, query)
        fast = run(spark, query, fastwindow_on=True)
    assert not any("skewed" in (r.note or "") for r in fast.reports), fast.reports


@pytest.mark.parametrize("confs", [
    {"spark.fastwindow.acrossTasks.skewedKeys.minInputSize": "1g"},
    {"spark.fastwindow.acrossTasks.skewedKeys": "false"},
], ids=["below-min-input-size", "off"])
@SPREADING
def test_not_split_by_settings(skewed, spark, confs):
    query = "select id, row_number() over (partition by k order by o, id) rn from skewed"
    with session_confs(spark, {**SKEWED, **confs}):
        fast = run(spark, query, fastwindow_on=True)
    assert not any("skewed" in (r.note or "") for r in fast.reports), fast.reports
