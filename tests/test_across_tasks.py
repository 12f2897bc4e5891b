"""Windows without PARTITION BY spread over tasks, against Spark.

Spark runs a window without PARTITION BY in one task. fastwindow splits its rows into ranges of
the ORDER BY keys (a shuffle by ranges found from a sample of the keys), summarises each range in
the map tasks, and evaluates each range in its own task, seeded with what comes before it
(row_number, rank, running aggregates) or reading rows of its neighbours (lag/lead, ROWS frames
bounded on both sides, RANGE frames bounded by value offsets): ``fastwindow.exec.acrosstasks``.
Every query here must give Spark's rows and run on more than one range (adaptive coalescing is
off, so small inputs keep their ranges), with ranges that split nothing, one-row and empty ranges,
halos longer than a range, ties at range boundaries, NULL and NaN keys, DESC and NULLS LAST; the
last tests are windows planned across tasks whose ranges must run in one task at run time.
"""

from __future__ import annotations

import pytest

from helpers import (assert_runs_agree, assert_same_as_spark, assert_same_error, run, run_both,
                     session_confs)

SPREADING = pytest.mark.generated_only(
    "the subject is how a window is spread over ranges (the range shuffle, summaries, seeds and"
    " halos routed to tasks), the same Scala on both evaluators; each function's seed and merge"
    " run on both in test_each_function_on_ranges")

RANGES = "numRanges"
ACROSS_TASKS = "spark.fastwindow.acrossTasks.enabled"


def _spread(spark, query: str, ranges: int, *, ansi=None, summary_reads=None) -> None:
    """``query`` gives Spark's rows and each FastWindow of it ran across tasks, on more than one
    range when ``ranges`` (the shuffle partitions) allows (fewer when the sample has fewer
    distinct keys), summarised by the map tasks unless ``summary_reads`` says otherwise (by
    default none, and for a window with dense_rank at most one: its ranges' distinct ORDER BY
    values are counted by the map tasks when its rows reach them in order, else by a second read)."""
    confs = {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": str(ranges),
             "spark.sql.adaptive.coalescePartitions.enabled": "false"}
    with session_confs(spark, confs):
        fast, vanilla = run_both(spark, query, ansi=ansi)
    assert_runs_agree(fast, vanilla)
    n = len(fast.rows)  # each row once (twice below another ranged window: its sample reads it)
    for report in fast.reports:
        assert "across tasks" in (report.note or ""), report
        assert dict(report.metrics).get("numOutputRows") in (n, 2 * n), report
        made = dict(report.metrics).get(RANGES, 0)
        assert 1 < made <= ranges if ranges > 1 else made == 1, report
        if ranges > 1:
            counted = any("dense_rank" in e.lower() for e in report.window_expressions)
            reads = [summary_reads] if summary_reads is not None else [0, 1] if counted else [0]
            assert dict(report.metrics).get("numSummaryReads", 0) in reads, report
    assert n in [dict(report.metrics).get("numOutputRows") for report in fast.reports]


@pytest.fixture(scope="module")
def series(spark_session):
    """2,000 rows: ``o`` unique, ``k`` with ties (groups of 1 to 7 rows), ``x`` with NULLs and
    NaNs, ``v`` integral, ``n`` integral with NULLs and ties, ``dt`` dates with ties."""
    spark_session.sql("""
        create or replace temporary view series as
        select id as o,
               cast(id div (1 + id % 7) as int) as k,
               case when id % 17 = 0 then null
                    when id % 29 = 0 then cast('NaN' as double)
                    else cast((id * 7919) % 1000 as double) / 8 end as x,
               (id * 104729) % 1000 - 500 as v,
               case when id % 11 = 0 then null else (id * 31) % 500 end as n,
               date_add(date'2024-01-01', cast(id % 400 as int)) as dt,
               id
        from range(0, 2000, 1, 3)""")
    return spark_session


SEEDED = [
    "row_number() over (order by o)",
    "rank() over (order by k)",
    "rank() over (order by x desc nulls last)",
    "percent_rank() over (order by k)",
    "cume_dist() over (order by x nulls last)",
    "ntile(7) over (order by o desc)",
    "sum(v) over (order by o rows between unbounded preceding and current row)",
    "sum(v) over (order by k)",                       # RANGE: ties counted once per group
    "count(x) over (order by x nulls last)",
    "min(v) over (order by k desc)",
    "max(v) over (order by o)",
    "avg(v) over (order by o)",
    "rank() over (order by n desc nulls first)",      # one integral key: bounds compared as longs
    "cume_dist() over (order by n nulls last)",
    "sum(v) over (order by dt desc)",
    "dense_rank() over (order by n nulls first, dt desc)",  # more: test_dense_rank_counted_...
    "sum(v) over (order by o rows between unbounded preceding and unbounded following)",
    "max(v) over (order by k range between unbounded preceding and unbounded following)",
    # a running share of the total: both frames in one operator
    "sum(v) over (order by k) / sum(v) over (order by k rows between unbounded preceding and "
    "unbounded following)",
    # first/last: the state before a range is one row's (forward fill: last IGNORE NULLS)
    "last(x, true) over (order by o)",
    "first(n, true) over (order by o desc)",
    "last(v) over (order by o rows between unbounded preceding and current row)",
    "last(n, true) over (order by dt, o rows between unbounded preceding and unbounded following)",
    # nth_value: the state before a range is that of the window's first n rows (that count);
    # first() without IGNORE NULLS is nth_value(x, 1) to Spark's optimizer.
    "first(x) over (order by o)",
    "nth_value(n, 3) over (order by dt desc, o rows between unbounded preceding and current row)",
    "nth_value(x, 400) ignore nulls over (order by o)",              # further than a range
    "nth_value(v, 2) over (order by o desc rows between unbounded preceding and unbounded following)",
    # strings: the state is a row's value (a forward fill of a label, the first of a series)
    "last(case when o % 9 = 0 then concat('s', cast(v as string)) end, true) over (order by o)",
    "first(cast(n as string)) over (order by dt desc, o)",
    "nth_value(cast(x as string), 2) over (order by o rows between unbounded preceding and "
    "unbounded following)",
    "max(concat('v', cast(v as string))) over (order by o)",    # min/max: a state of one string
    "min(cast(n as string)) over (order by k rows between unbounded preceding and unbounded "
    "following)",
    # Shrinking frames: the state of the ranges after (test_across_tasks_shrinking.py).
    "sum(v) over (order by o rows between current row and unbounded following)",
    "count(x) over (order by k desc range between current row and unbounded following)",
    "last(x, true) over (order by n nulls first, o rows between current row and unbounded "
    "following)",
    "avg(v) over (order by dt range between current row and unbounded following)",
    "sum(cast(v as decimal(12, 2))) over (order by o desc rows between current row and unbounded "
    "following)",
    "first(cast(x as string), true) over (order by o rows between current row and unbounded "
    "following)",
]

HALO = [
    "lag(v) over (order by o)",
    "lead(x, 3, -1.0) over (order by o desc)",
    "lag(v, 40) over (order by o)",                   # reaches past whole ranges
    "sum(v) over (order by o rows between 5 preceding and 2 following)",
    "max(x) over (order by o rows between 30 preceding and 30 following)",
    "percentile(v, 0.5) over (order by o rows between 3 preceding and 3 following)",
    # IGNORE NULLS: the nearest rows with a value, however far
    "lag(x) ignore nulls over (order by o)",
    "lead(n, 2, -1) ignore nulls over (order by o desc)",
    "lag(n, 3) ignore nulls over (order by o) + lead(x, 1) ignore nulls over (order by o)",
    # RANGE frames bounded by value offsets: the rows whose keys the edges reach
    "avg(v) over (order by o range between 10 preceding and current row)",
    "sum(v) over (order by k range between 3 preceding and 2 following)",   # ties
    "count(x) over (order by x desc nulls last range between 5 preceding and 5 following)",
    "max(v) over (order by dt range between 30 preceding and current row)",
    "min(v) over (order by dt desc range between 3 preceding and 1 preceding)",
    "percentile(v, 0.5) over (order by n nulls first range between 20 preceding and 20 following)",
    "sum(v) over (order by o range between 900 preceding and 900 following)",  # past whole ranges
    "first_value(x) over (order by o range between 2 following and 5 following)",
    "avg(v) over (order by timestamp_seconds(o * 37) range between interval 10 minutes preceding"
    " and current row)",
    "count(*) over (order by k range between current row and current row)",   # peers only
    # nth_value from the current row to the end: its n-th row after (with a value)
    "nth_value(x, 3) over (order by k range between current row and unbounded following)",
    "nth_value(case when o % 400 = 7 then x end, 2) ignore nulls over (order by o desc rows "
    "between current row and unbounded following)",
]


@pytest.mark.parametrize("function", SEEDED + HALO)
def test_each_function_on_ranges(series, spark, function):
    _spread(spark, f"select id, {function} as r from series", 7)


@SPREADING
@pytest.mark.parametrize("first", range(0, len(SEEDED + HALO), 10))
def test_functions_on_ranges_coalesced_by_adaptive_execution(series, spark, first):
    """Adaptive execution's coalescing on, as Spark runs by default: each task reads several
    ranges (one seed and the halos of their union), ten functions at a time."""
    functions = (SEEDED + HALO)[first:first + 10]
    query = "select id, " + ", ".join(f"{f} as r{i}" for i, f in enumerate(functions)) + \
        " from series"
    confs = {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "24",
             "spark.sql.adaptive.coalescePartitions.enabled": "true",
             "spark.sql.adaptive.coalescePartitions.parallelismFirst": "false",
             "spark.sql.adaptive.coalescePartitions.minPartitionSize": "1k",
             "spark.sql.adaptive.advisoryPartitionSizeInBytes": "12k"}
    with session_confs(spark, confs):
        fast, vanilla = run_both(spark, query)
    assert_runs_agree(fast, vanilla)
    assert all("across tasks" in (r.note or "") for r in fast.reports), fast.reports
    made = [dict(r.metrics).get(RANGES, 0) for r in fast.reports]
    assert any(1 < n < 24 for n in made), made


@pytest.mark.parametrize("function", [
    "last(case when o < 90 or o > 1950 then v end, true) over (order by o)",
    "first(case when o > 1500 then v end, true) over (order by o)",
    "last(case when o % 500 = 7 then x end, true) over (order by o desc)",
    "first(case when o > 3000 then v end, true) over (order by o)",
    "nth_value(case when o > 900 then x end, 2) ignore nulls over (order by o)",
    "lag(case when o < 60 or o > 1900 then v end, 2) ignore nulls over (order by o)",
    "lead(case when o % 700 = 3 then x end) ignore nulls over (order by o desc)",
    "nth_value(case when o > 3000 then v end, 1) ignore nulls over (order by o)",
])
@SPREADING
def test_first_and_last_whose_row_is_ranges_away(series, spark, function):
    """The rows that decide first/last/nth_value IGNORE NULLS lie ranges before (all NULLs
    between), or nowhere (NULL throughout)."""
    _spread(spark, f"select id, {function} as r, sum(v) over (order by o) s from series", 7)


@SPREADING
@pytest.mark.parametrize("order,reads", [("o", 0), ("o desc", 0), ("o div 10", 0), ("k", 1),
                                         ("x desc nulls last", 1)])
def test_dense_rank_counted_by_the_map_tasks_or_a_second_read(series, spark, order, reads):
    """Rows that reach each map task in the ORDER BY's order (or its reverse): the map tasks
    count each range's distinct values, no second read. ``o div 10`` has a value in two map
    tasks (ids 666 and 667), at the end of one's values and the start of the other's: counted
    once. Keys out of order (``k``, ``x``): counted by a second read of the shuffle's output."""
    _spread(spark, f"select id, dense_rank() over (order by {order}) d from series", 7,
            summary_reads=reads)


@SPREADING
@pytest.mark.parametrize("second,reads", [(0, 0), (500, 1)])
def test_dense_rank_over_runs_in_order(spark_session, spark, second, reads):
    """One map task reads two runs of rows, each in order (as a task reads several files of a
    table written in order, files by size): counted there when the runs' values meet at most at
    their ends (1000..1999, then 0..999: ``id div 3`` is 333 at both ends), read again when
    they overlap (1000..1999, then 500..1499)."""
    query = f"""select id, dense_rank() over (order by id div 3) d from
                (select /*+ COALESCE(1) */ * from (select id from range(1000, 2000)
                 union all select id from range({second}, {second + 1000})))"""
    _spread(spark, query, 7, summary_reads=reads)


@SPREADING
@pytest.mark.parametrize("ranges", [1, 64])
def test_empty_and_one_row_ranges(series, spark, ranges):
    """64 ranges over 80 rows: some empty, some of one row, halos longer than them."""
    query = """select o, row_number() over (order by o) rn, rank() over (order by k) rk,
                      ntile(100) over (order by o) nt, cume_dist() over (order by k) cd,
                      dense_rank() over (order by k) dr, lag(v, 3) over (order by o) l,
                      sum(v) over (order by k) s, count(v) over (order by k range between
                      unbounded preceding and unbounded following) c,
                      avg(v) over (order by o rows between 2 preceding and 4 following) a
               from series where o < 80"""
    _spread(spark, query, ranges)


@SPREADING
def test_mixed_functions_two_operators(series, spark):
    """Seeded and halo functions in one window: a halo operator below a seeded one."""
    _spread(spark, """select id, lead(v) over w, row_number() over w, sum(v) over w,
                             lag(x, 2) over w from series window w as (order by o)""", 5)
    # The seeded one takes given rows (first, last); the halo one reads the nearest rows with a
    # value.
    _spread(spark, """select id, first(x) over w, last(n, true) over w, lag(n) ignore nulls over w
                      from series window w as (order by dt, o)""", 5)
    # A RANGE frame's reach and lag's rows in one halo operator (the longer of the two).
    _spread(spark, """select id, lag(v, 30) over w, sum(v) over (order by k range between 4
                      preceding and current row), row_number() over w from series
                      window w as (order by k)""", 5)


@SPREADING
@pytest.mark.parametrize("ansi", [True, False])
def test_ansi_modes(series, spark, ansi):
    _spread(spark, """select id, sum(v) over (order by k) s, count(*) over (order by k) c,
                             lag(v) over (order by o) l from series""", 4, ansi=ansi)


@SPREADING
def test_ties_ordered_by_value_for_halo_rows(spark_session, spark):
    """lag, lead and moving frames over ORDER BY ties: with halo functions each range orders
    peers by the other columns' values (the rows a range hands on to its neighbour must be the
    ones its own task puts last or first, whatever order the shuffle delivers them in), so the
    rows are Spark's for the window ordered by the key and then by those columns."""
    spark.sql("""create or replace temporary view ties as
                 select cast(id div 9 as int) as k, (id * 7919) % 1000 as w
                 from range(0, 900, 1, 3)""")
    def query(order):
        return (f"select k, w, lag(w) over (order by {order}) l, lead(w, 2) over (order by {order})"
                f" r, sum(w) over (order by {order} rows between 3 preceding and 1 following) s"
                " from ties")
    with session_confs(spark, {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "6",
                               "spark.sql.adaptive.coalescePartitions.enabled": "false"}):
        fast = run(spark, query("k"), fastwindow_on=True)
    expected = run(spark, query("k, w"), fastwindow_on=False)
    assert sorted(fast.rows) == sorted(expected.rows)
    assert all("across tasks" in (r.note or "") for r in fast.reports), fast.reports


@SPREADING
def test_without_adaptive_execution(series, spark):
    """The map stage runs before the summaries are read (adaptive execution runs it first)."""
    with session_confs(spark, {"spark.sql.adaptive.enabled": "false"}):
        _spread(spark, """select id, lead(v) over w, row_number() over w, sum(v) over w
                          from series window w as (order by o)""", 5)


@SPREADING
def test_ranges_summarised_from_the_shuffle_past_the_map_side_cap(series, spark):
    """Summaries of 3 map tasks x 128 ranges x 1,801 entries (a count, 1,800 halo rows) are more
    than the map tasks send to the driver: the ranges are summarised from the shuffle's output
    instead (a second read, counted)."""
    query = "select id, lag(v, 900) over w l, lead(x, 900) over w r from series window w as (order by o)"
    _spread(spark, query, 128, summary_reads=1)


@SPREADING
def test_keys_sampled_from_the_input_rows(series, spark):
    """Over a child that is more than scans (an aggregate, another spread window), the keys are
    sampled from the child's rows, not from a second plan of it."""
    _spread(spark, """select g, s, row_number() over (order by s, g) rn,
                             lag(s) over (order by s, g) l
                      from (select k as g, sum(v) as s from series group by k)""", 5)
    _spread(spark, """select id, rn, lag(rn) over (order by v, id) l2 from
                      (select id, v, row_number() over (order by o) rn from series)""", 5)


@SPREADING
def test_one_task_when_a_function_cannot_spread(series, spark):
    """min of doubles is decided by which of 0.0 and -0.0 comes first, which merging ranges'
    states cannot know: one task, and the report says why."""
    query = "select id, min(x) over (order by k) f, row_number() over (order by o) r from series"
    with session_confs(spark, {ACROSS_TASKS: "true"}):
        fast = run(spark, query, fastwindow_on=True)
        assert_same_as_spark(spark, query)
    assert any("in one task: min" in (r.note or "") for r in fast.reports), fast.reports


@pytest.mark.parametrize("others", [
    "lag(v, 3) over w b, sum(v) over (order by o rows between 4 preceding and 1 following) c",
    "max(v) over (order by o range between 30 preceding and 20 following) b, lead(n) over w c",
], ids=["counted", "reached-by-value"])
def test_ignore_nulls_beside_other_halo_functions(series, spark, others):
    """lag/lead IGNORE NULLS read the nearest rows with a value, however far; the others the rows
    next to the range: each range reads both (NULL runs longer than a range included)."""
    _spread(spark, f"""select id, lag(case when o < 50 or o % 300 = 0 then x end) ignore nulls
                       over w a, lead(n, 2) ignore nulls over w d, {others} from series
                       window w as (order by o)""", 7)


@SPREADING
def test_one_task_past_the_halo_cap(series, spark):
    query = "select id, lag(v, 20) over (order by o) l from series"
    with session_confs(spark, {ACROSS_TASKS: "true",
                               "spark.fastwindow.acrossTasks.maxHaloRows": "10"}):
        fast = run(spark, query, fastwindow_on=True)
    assert any("in one task: it reads 20 rows" in (r.note or "") for r in fast.reports), fast.reports


def _one_task_at_run_time(spark, query: str, confs: dict, ranges: int = 5) -> None:
    """``query`` is planned across tasks, but its ranges run in one task (one range made), with
    Spark's rows."""
    with session_confs(spark, {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": str(ranges),
                               "spark.sql.adaptive.coalescePartitions.enabled": "false",
                               **confs}):
        fast, vanilla = run_both(spark, query)
    assert_runs_agree(fast, vanilla)
    assert all("across tasks" in (r.note or "") for r in fast.reports), fast.reports
    halo = [r for r in fast.reports if "reading" in (r.note or "")]
    assert [dict(r.metrics).get(RANGES) for r in halo] == [1], fast.reports


@SPREADING
def test_range_frame_reaching_past_the_summaries_runs_in_one_task(series, spark):
    """A RANGE frame's edges reach 200 keys back, more rows than the summaries keep (50): the
    ranges are evaluated in one task at run time, the first task reading every range; the seeded
    operator above it is still spread (its tasks over the other ranges get no rows)."""
    _one_task_at_run_time(
        spark, "select id, sum(v) over (order by o range between 200 preceding and current row) s,"
               " row_number() over (order by o) rn, max(v) over (order by o) m from series",
        {"spark.fastwindow.acrossTasks.maxHaloRows": "50"})


@SPREADING
def test_range_frame_rows_beyond_the_map_tasks_room(spark_session, spark):
    """200 ranges (adaptive execution coalescing them into a few tasks) of 2 map tasks leave room
    for 498 of each range's rows in the map tasks' summaries; a frame reaching 600 rows back
    needs more: the tasks' rows are summarised again from the shuffle's output, keeping up to
    maxHaloRows (1,000), and the window stays spread."""
    query = """select id, sum(v) over (order by id range between 600 preceding and 590 preceding) s
               from (select id, (id * 7919) % 1000 as v from range(0, 250000, 1, 2))"""
    with session_confs(spark, {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "200",
                               "spark.sql.adaptive.advisoryPartitionSizeInBytes": "1m"}):
        fast, vanilla = run_both(spark, query)
    assert_runs_agree(fast, vanilla)
    metrics = dict(fast.reports[0].metrics)
    assert metrics.get(RANGES, 0) > 1 and metrics.get("numSummaryReads") == 1, fast.reports


@SPREADING
def test_range_frame_whose_edges_wrap_around(spark_session, spark):
    """Int keys from the smallest int up: outside ANSI mode a key minus 100 wraps around for the
    first 100 keys, whose frames Spark then empties, moving its frames' start past key -2^31+149
    (a frame's start never moves back), so the second range's first row (key -2^31+220) gets no
    rows below that key, where the rows its edge reaches (from -2^31+120) would give it more: the
    ranges run in one task at run time, Spark's rows. Under ANSI, Spark's error."""
    query = """select id, sum(id) over (order by k range between 100 preceding and 50 following) s
               from (select id, cast(-2147483648 + if(id < 1000, id div 5, id - 780) as int) as k
                     from range(0, 2000, 1, 2))"""
    _one_task_at_run_time(spark, query, {"spark.sql.ansi.enabled": "false"}, ranges=2)
    with session_confs(spark, {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "2"}):
        assert assert_same_error(spark, query, ansi=True) == "ARITHMETIC_OVERFLOW"
