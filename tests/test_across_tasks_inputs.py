"""Windows without PARTITION BY spread over tasks from other inputs, against Spark.

Inputs below ``spark.fastwindow.acrossTasks.minInputSize`` stay in one task (by default; the test
session sets it to 0). Without ORDER BY (``x / sum(x) OVER ()``) over a child that is not a scan (a
join, an aggregate; a scan's rows stay where they are: test_key_aggregates.py), the rows are split
by a hash of their columns and every task is seeded with the merged aggregates of all rows. With
ORDER BY over files, the range bounds come from a sample of the key columns read as column
batches. The helpers and the ``series`` table are test_across_tasks.py's.
"""

from __future__ import annotations

import pytest

from helpers import assert_same_as_spark, run, session_confs
from test_across_tasks import ACROSS_TASKS, SPREADING, _spread, series  # noqa: F401 (a fixture)

MIN_INPUT = "spark.fastwindow.acrossTasks.minInputSize"


@SPREADING
def test_small_inputs_run_in_one_task(series, spark):
    """By default an input smaller than acrossTasks.minInputSize (32 MB by Spark's estimate)
    runs in one task, and the report says why; a threshold below it spreads the same window."""
    query = "select id, row_number() over (order by o) r, lag(v) over (order by o) l from series"
    spark.conf.unset(MIN_INPUT)  # the default (the test session spreads every size)
    try:
        with session_confs(spark, {ACROSS_TASKS: "true"}):
            fast = run(spark, query, fastwindow_on=True)
            assert_same_as_spark(spark, query)
    finally:
        spark.conf.set(MIN_INPUT, "0")
    assert all("its input is smaller" in (r.note or "") and MIN_INPUT in r.note
               for r in fast.reports), fast.reports
    with session_confs(spark, {MIN_INPUT: "1k"}):
        _spread(spark, query, 4)


def test_small_inputs_aggregate_over_all_rows_in_one_task(series, spark):
    """Aggregates over all rows (OVER ()) of a small scan run in one task too: running them where
    the rows are costs a job of its own, more than the one task over a small input."""
    query = "select id, v / sum(v) over () a, count(*) over () c from series"
    spark.conf.unset(MIN_INPUT)
    try:
        fast = run(spark, query, fastwindow_on=True)
        assert_same_as_spark(spark, query)
    finally:
        spark.conf.set(MIN_INPUT, "0")
    assert all("its input is smaller" in (r.note or "") for r in fast.reports), fast.reports
    fast = run(spark, query, fastwindow_on=True)
    assert all("not shuffled" in (r.note or "") for r in fast.reports), fast.reports


# OVER () over a child that is not a scan (a scan's rows stay where they are: test_key_aggregates):
# the rows are split by a hash of their columns, and every task is seeded with all rows'
# aggregates. A join and a grouped aggregate as children; decimal and ANSI-checked sums.
OVER_ALL = ["sum(v) over ()", "count(*) over ()", "count(x) over ()", "max(s) over ()",
            "min(v) over ()", "avg(cast(v as decimal(12, 2))) over ()", "bit_xor(v) over ()",
            "v / sum(s) over ()", "sum(s) over (rows between unbounded preceding and unbounded "
            "following)", "min(cast(id as string)) over ()"]
GROUPED = "(select k, sum(v) as s, max(v) as v, max(x) as x, min(id) as id from series group by k)"
JOINED = "(select s.*, g.s from series s join (select k, sum(v) s from series group by k) g using (k))"


@pytest.mark.parametrize("child", [GROUPED, JOINED])
@pytest.mark.parametrize("ansi", [False, True])
def test_aggregates_over_all_rows_of_any_child(series, spark, child, ansi):
    exprs = ", ".join(f"{e} as a{i}" for i, e in enumerate(OVER_ALL))
    query = f"select id, {exprs} from {child}"
    with session_confs(spark, {"spark.fastwindow.keyAggregates.enabled": "false"}):
        _spread(spark, query, 7, ansi=ansi)
    with session_confs(spark, {"spark.sql.adaptive.coalescePartitions.enabled": "false"}):
        fast = run(spark, query, fastwindow_on=True)
    assert all("a hash of their columns" in (r.note or "") for r in fast.reports), fast.reports
    # Each task knows every result before its first row: its rows stream through, none held.
    for report in fast.reports:
        metrics = dict(report.metrics)
        assert metrics.get("numStreamedPartitions") == metrics.get("numWindowPartitions") > 1, \
            report


@SPREADING
@pytest.mark.parametrize("aqe", ["true", "false"])
def test_all_rows_hashed_from_a_scan_and_edge_inputs(series, spark, aqe):
    """With spark.fastwindow.keyAggregates.enabled off, a scan's rows are split by hash too. Rows
    equal in every hashed column share a range; a map column is not hashed; an empty input."""
    confs = {"spark.fastwindow.keyAggregates.enabled": "false", "spark.sql.adaptive.enabled": aqe}
    with session_confs(spark, confs):
        _spread(spark, "select id, sum(v) over () s, max(n) over () m from series", 5)
        _spread(spark, """select id, sum(w) over () s from (select id, map(id, v) m, 1 as w,
                          v from series)""", 5)
        _spread(spark, "select id, count(*) over () c from (select id div 2000 id from series)", 5)
        assert_same_as_spark(spark, "select id, sum(v) over () from series where id < 0",
                             empty_input=True)


@SPREADING
def test_all_rows_in_one_task_where_the_order_decides(series, spark):
    """first() over all rows takes whichever row reaches the one task first: no ranges."""
    query = f"select id, first(v) over () f, sum(v) over () s from {GROUPED}"
    fast = run(spark, query, fastwindow_on=True)
    assert any("in one task: first" in (r.note or "") for r in fast.reports), fast.reports


@SPREADING
@pytest.mark.parametrize("order,where", [("t", ""), ("x desc nulls last, o", ""),
                                         ("o div 3", ""), ("t", "where v > 0")])
def test_ranges_even_over_files(spark, tmp_path, order, where):
    """The bounds come from a sample of the key columns of the Parquet files (read as column
    batches, rows picked by index; through a filter, as rows): each of 8 ranges holds its fair
    share of 40,000 rows within 1.3x (the window's output partition is its range). ``t`` is in
    the files' order: a sample of each file's first rows would put most rows in the last range."""
    path = str(tmp_path / "series")
    spark.range(0, 40000, 1, 3).selectExpr(
        "id as t", "(id * 7919) % 40000 as o", "(id * 104729) % 1000 - 500 as v",
        "case when id % 17 = 0 then null when id % 29 = 0 then cast('NaN' as double) "
        "else cast((id * 31) % 1000 as double) end as x").write.parquet(path)
    query = f"""select spark_partition_id() as part, count(*) as n, max(r) as last from
                (select *, row_number() over (order by {order}) r from parquet.`{path}` {where})
                group by 1"""
    with session_confs(spark, {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "8",
                               "spark.sql.adaptive.coalescePartitions.enabled": "false"}):
        counts = [r.n for r in spark.sql(query).collect()]
        total = spark.sql(f"select count(*) from parquet.`{path}` {where}").collect()[0][0]
    assert sum(counts) == total and len(counts) == 8, counts
    assert max(counts) <= 1.3 * total / 8, counts


@SPREADING
def test_ignore_nulls_beside_counted_halos_over_rows_equal_in_every_column(spark):
    """Every row twice, equal in every column: a range reads the rows next to it and the nearest
    with a value, each kept by the summaries on its own; a row both keep must come as many times
    as it is there, not once more or less (lag's rows and the IGNORE NULLS values agree)."""
    spark.sql("""
        create or replace temporary view twice as
        select id % 500 as o, case when id % 500 % 3 > 0 then id % 500 end as x
        from range(0, 1000, 1, 2)""")
    _spread(spark, """select o, x, lag(x, 3) ignore nulls over w a, lag(x, 2) over w b,
                      lead(x, 2) ignore nulls over w c, lead(o) over w d
                      from twice window w as (order by o)""", 7)


@SPREADING
def test_nondeterministic_input_spreads_only_over_files(series, spark):
    """A nondeterministic column over files (rand with a seed, monotonically_increasing_id)
    comes out the same when a map task runs again: spread. Over a shuffle's output, whose rows
    come in another order each run, it would not: one task, and the report says why."""
    _spread(spark, """select id, r, row_number() over w rn, lag(v) over w l
                      from (select *, monotonically_increasing_id() * 3 + rand(7) as r
                            from series) window w as (order by r, id)""", 5)
    query = """select k, r, row_number() over (order by r, k) rn from
               (select k, max(v) + rand(7) as r from series group by k)"""
    with session_confs(spark, {ACROSS_TASKS: "true"}):
        fast = run(spark, query, fastwindow_on=True)
        assert_same_as_spark(spark, f"select count(*), count(distinct rn), max(rn) from ({query})")
    assert all("nondeterministic expression above a shuffle" in (r.note or "")
               for r in fast.reports), fast.reports


# ORDER BY keys whose equal values differ in their bytes: strings equal under a collation
# ('a' and 'A'), 0.0 and -0.0. 3,000 rows, 20 values of each key in all.
OTHER_BYTES = {
    "collated": "case when id div 20 % 2 = 0 then chr(97 + id % 20) "
                "else upper(chr(97 + id % 20)) end "
                "collate utf8_lcase",
    "signed_zeros": "case when id % 3 = 0 then cast(id % 19 + 1 as double) "
                    "else (id % 2 * 2 - 1) * 0.0D end",
}


@SPREADING
@pytest.mark.parametrize("key", OTHER_BYTES)
def test_one_order_of_ties_whose_bytes_differ(spark, key):
    """Rows equal under the ORDER BY (here in every column) but not in their bytes are ties,
    which Spark orders as its fetches complete; spread over ranges, every function of the window
    must still read one order of them: the value numbered r is the one lag reads at r + 1, lead
    (2) at r - 2 and a moving frame's first value at r + 1, bit for bit."""
    query = f"""select key, row_number() over w rn, lag(key) over w l, lead(key, 2) over w d,
                       first_value(key) over (order by key rows between 1 preceding and 1
                                              following) f
                from (select {OTHER_BYTES[key]} as key from range(0, 3000, 1, 3))
                window w as (order by key)"""
    confs = {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "6",
             "spark.sql.adaptive.coalescePartitions.enabled": "false"}
    with session_confs(spark, confs):
        fast = run(spark, query, fastwindow_on=True)
    assert fast.reports and all("across tasks" in (r.note or "") and
                                dict(r.metrics).get("numRanges", 0) > 1 for r in fast.reports)
    by_number = {row.rn: row for row in fast.rows}
    assert sorted(by_number) == list(range(1, 3001))
    keys = [repr(by_number[r].key) for r in range(1, 3001)]  # repr: -0.0 is not 0.0
    assert len(set(keys)) > 20, set(keys)  # 20 values, some in two spellings
    for r, row in by_number.items():
        at = r - 1
        assert repr(row.l) == (keys[at - 1] if at >= 1 else "None"), row
        assert repr(row.d) == (keys[at + 2] if at + 2 < len(keys) else "None"), row
        assert repr(row.f) == keys[max(at - 1, 0)], row


@SPREADING
def test_halo_rows_and_summary_size_are_counted(series, spark):
    """The window reports the rows of neighbouring ranges handed to each range (lag 3 reads the
    three rows before each range but the first, lead 2 the two after each but the last) and the
    bytes the summaries hold; a seeded window hands on none."""
    confs = {ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "5",
             "spark.sql.adaptive.coalescePartitions.enabled": "false"}
    with session_confs(spark, confs):
        halos = run(spark, "select o, lag(v, 3) over w a, lead(v, 2) over w b from series "
                           "window w as (order by o)", fastwindow_on=True)
        seeded = run(spark, "select o, row_number() over (order by o) r from series",
                     fastwindow_on=True)
    (metrics,) = [dict(r.metrics) for r in halos.reports]
    assert metrics["numRanges"] == 5 and metrics["numHaloRows"] == 4 * 3 + 4 * 2, metrics
    assert metrics["summarySize"] > 0, metrics
    (metrics,) = [dict(r.metrics) for r in seeded.reports]
    assert metrics.get("numHaloRows", 0) == 0 and metrics["numRanges"] == 5, metrics


def _path_to(plan, found, path=()):
    """The child indices from `plan` (a JVM SparkPlan) down to the first node `found` accepts."""
    if found(plan):
        return path
    children = plan.children()
    for i in range(children.size()):
        below = _path_to(children.apply(i), found, path + (i,))
        if below is not None:
            return below
    return None


def _replaced(spark, plan, path, replacement):
    """`plan` with the node at `path` replaced."""
    if not path:
        return replacement
    children = [plan.children().apply(i) for i in range(plan.children().size())]
    children[path[0]] = _replaced(spark, children[path[0]], path[1:], replacement)
    return plan.withNewChildren(spark._jvm.org.apache.spark.api.python.PythonUtils.toSeq(children))


def test_a_replaced_range_shuffle_runs_in_one_task(spark):
    """A window spread over ranges checks, when it runs, that it reads the range shuffle planned
    below it: where another rule or plugin replaced it (here a round-robin shuffle of the same
    rows in its place), its tasks' rows, each sorted, are not ranges, and the window merges them
    into its first task and evaluates them there, as Spark's one task does."""
    query = """select id, row_number() over w r, sum(id) over w s, lag(id, 2) over w l
               from range(0, 3000, 1, 3) window w as (order by id)"""
    confs = {ACROSS_TASKS: "true", "spark.sql.adaptive.enabled": "false",
             "spark.sql.shuffle.partitions": "4"}
    with session_confs(spark, confs):
        _spread(spark, query, 4)
        plan = spark.sql(query)._jdf.queryExecution().executedPlan()
        round_robin = spark.range(10).repartition(4)._jdf.queryExecution().executedPlan()
    assert round_robin.nodeName() == "Exchange", round_robin.toString()
    path = _path_to(plan, lambda node: node.nodeName() == "FastWindowRangeSplit")
    assert path, plan.toString()
    split = plan
    for i in path:
        split = split.children().apply(i)
    to_seq = spark._jvm.org.apache.spark.api.python.PythonUtils.toSeq
    # The range shuffle (the split's parent) replaced by a round-robin one of the split's input.
    swapped = _replaced(spark, plan, path[:-1],
                        round_robin.withNewChildren(to_seq([split.children().apply(0)])))
    assert "FastWindowRangeSplit" not in swapped.toString(), swapped.toString()
    rows = swapped.executeCollect()
    got = sorted((rows[i].getLong(0), rows[i].getInt(1), rows[i].getLong(2),
                  None if rows[i].isNullAt(3) else rows[i].getLong(3)) for i in range(len(rows)))
    assert got == [(i, i + 1, i * (i + 1) // 2, i - 2 if i >= 2 else None) for i in range(3000)]
