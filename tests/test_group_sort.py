"""Windows that order their own input (``spark.fastwindow.groupSort.enabled``, on by default),
against Spark.

Spark sorts every row of a task by (PARTITION BY keys, ORDER BY keys) below a window. With the
setting on, FastWindow requires only the clustering, so no Sort is planned, and orders each task's
rows itself: grouped by key by hash in O(n), the keys sorted, each window partition sorted alone.
That sort is stable, as Spark's in-memory sort is, so ORDER BY ties reach the functions in Spark's
order and even ``row_number`` over ties matches, and the rows come out in Spark's order exactly.
Every query runs with fastwindow on and off, and must give the same rows (both evaluators where the
ordering of a key type is the subject).
"""

import pytest
from helpers import assert_rows_equal, assert_same_as_spark, run, session_confs

#: Tests run on the generated evaluator only (tests/conftest.py): the interpreted twin adds
#: nothing to them.
GENERATED_ONLY = pytest.mark.generated_only(
    "the operator's grouping, memory and planning, the same Scala on both evaluators; the "
    "twin's ordering runs test_windows_over_each_order_key and test_each_partition_key_type.")

#: The other tests run on each evaluator in a run of its own (tests/conftest.py): VERIFY
#: checks FastWindow's evaluators, not the group sort's interpreted key comparisons.
pytestmark = pytest.mark.separate_twin(
    "the group sort's interpreted key comparisons (VERIFY covers FastWindow's)")

GROUP_SORT = "spark.fastwindow.groupSort.enabled"
SAMPLE_ROWS = "spark.fastwindow.distinctKeys.sampleRows"
GROUPED = "no sort below it: the task's rows grouped by key"


@pytest.fixture
def grouped(spark):
    with session_confs(spark, {GROUP_SORT: "true"}):
        yield spark


def grouped_windows(spark, query):
    fast = run(spark, query, fastwindow_on=True)
    return fast, [r for r in fast.reports if GROUPED in (r.note or "")]


def windows(partition, order, table="t", columns="p, id"):
    """Ranking, offset, running, moving and RANGE functions over one window, as one query."""
    w = f"partition by {partition} order by {order}"
    return (f"select {columns}, row_number() over ({w}) rn, rank() over ({w}) rk, "
            f"dense_rank() over ({w}) dr, percent_rank() over ({w}) pr, ntile(3) over ({w}) nt, "
            f"lag(i) over ({w}) lg, lead(s, 2) over ({w}) ld, "
            f"sum(l) over ({w} rows between unbounded preceding and current row) rs, "
            f"avg(dec) over ({w} rows between 2 preceding and 1 following) ma, "
            f"count(*) over ({w}) rc, max(i) over ({w} rows between current row and "
            f"unbounded following) sh from {table}")


def assert_grouped_and_same(spark, query, **kwargs):
    fast, grouped = grouped_windows(spark, query)
    assert grouped and "Sort " not in fast.plan, fast.plan
    assert "partitions grouped by hash and sorted apart" in fast.plan, fast.plan
    return assert_same_as_spark(spark, query, **kwargs)


ORDER_KEYS = ["by", "sh", "i", "l", "f", "d", "dec", "bigdec", "s", "bin", "bo", "dt", "ts", "ntz",
              "i desc nulls last", "ts desc", "bo nulls last, d desc", "g, s desc nulls first",
              "i + l", "upper(s)"]


@pytest.mark.parametrize("order", ORDER_KEYS)
def test_windows_over_each_order_key(grouped, order):
    # Most of these keys tie often (bo, g, by): row_number and lag see the ties in Spark's order.
    assert_grouped_and_same(grouped, windows("p", order))


PARTITION_KEYS = ["s", "p, g", "dt", "bo", "d", "bin", "p % 3", "cast(p as string)"]


@pytest.mark.parametrize("partition", PARTITION_KEYS)
def test_each_partition_key_type(grouped, partition):
    assert_grouped_and_same(grouped, windows(partition, "i, id desc"))


@pytest.mark.parametrize("ansi", [False, True])
def test_ansi_on_and_off(grouped, ansi):
    assert_grouped_and_same(grouped, windows("g", "l"), ansi=ansi)


def test_empty_input(grouped):
    assert assert_same_as_spark(grouped, windows("p", "i", table="empty_t"),
                                empty_input=True) == []


@pytest.fixture(scope="module")
def skewed(spark_session):
    """One hot key (20k rows), 2000 small keys, a NULL key and 30k keys of one row each; the
    order key ties in tens and has NULLs."""
    spark_session.range(0, 60000, 1, 3).selectExpr(
        "case when id < 20000 then 0 when id < 28000 then 1 + id % 2000 "
        "when id < 30000 then null else id end as k",
        "id", "cast(pmod(xxhash64(id), 1000) as int) as v",
        "case when id % 17 = 0 then null else pmod(xxhash64(id, 1), 3000) end as o",
    ).createOrReplaceTempView("skewed_grouped")
    yield "skewed_grouped"


@GENERATED_ONLY
@pytest.mark.parametrize("aqe", ["true", "false"])
@pytest.mark.parametrize("key", ["k", "cast(k as string)"])
def test_skewed_hot_and_distinct_keys(grouped, skewed, aqe, key):
    w = f"partition by {key} order by o"
    query = (f"select k, id, v, row_number() over ({w}) rn, lag(v) over ({w}) lg, "
             f"sum(v) over ({w} rows between 5 preceding and current row) ms, "
             f"rank() over ({w}) rk from {skewed}")
    with session_confs(grouped, {"spark.sql.adaptive.enabled": aqe}):
        assert_grouped_and_same(grouped, query)


@GENERATED_ONLY
def test_a_sort_widened_below_the_window_is_not_undone(grouped):
    # The join needs the window's output sorted by (p, x), and a SORT BY p leaves a local sort
    # below the window, in the same stage (one input partition, no shuffle). Spark 4.3's
    # PushDownLocalSort widens such a lower sort to the upper order and drops the upper sort when
    # everything between is order-preserving: a window that regrouped its own input would undo
    # the wider order (the join lost rows: 216 of 344). FastGroupOrder is a node of its own, not
    # order-preserving, so the rule stops at it.
    query = ("select a.p, a.x, a.o, a.rn, a.lg, b.x2 from (select p, x, o, "
             "row_number() over (partition by p order by o) rn, "
             "lag(d) over (partition by p order by o) lg from (select id % 7 p, (id * 3) % 5 x, "
             "id o, cast(id as double) d from range(0, 200, 1, 1) sort by p)) a "
             "left join (select id % 7 p2, id % 5 x2 from range(0, 60, 1, 1)) b "
             "on a.p = b.p2 and a.x = b.x2")
    with session_confs(grouped, {"spark.sql.autoBroadcastJoinThreshold": "-1",
                                 "spark.sql.adaptive.enabled": "false"}):
        fast, reports = grouped_windows(grouped, query)
        assert reports and "SortMergeJoin" in fast.plan, fast.plan
        assert len(assert_same_as_spark(grouped, query)) == 344


@GENERATED_ONLY
def test_windows_spark_sorts_once_keep_sparks_sorts(grouped):
    # A window by p below one by (p, id): Spark 4.3's PushDownLocalSort sorts both by (p, id)
    # once, so the lower one sums its rows in that order. Grouping the upper window would leave
    # the lower one its own sort by p, and a floating sum (d holds huge and infinite values) would
    # differ: where the rule is on, neither window is grouped.
    query = ("select p, i, id, row_number() over (partition by p order by id) rn, "
             "lag(s) over (partition by p order by id) lg "
             "from (select p, i, id, sum(d) over (partition by p) s from t)")
    fast, reports = grouped_windows(grouped, query)
    try:  # get with a default returns the default for a key left unset: ask without one
        rule_on = grouped.conf.get("spark.sql.execution.pushDownLocalSort") == "true"
    except Exception:  # noqa: BLE001 - a Spark line without the rule
        rule_on = False
    assert (not reports) if rule_on else reports, fast.plan
    assert_same_as_spark(grouped, query)


def sorted_tasks_with(spark, query, confs):
    """Runs ``query`` with ``confs`` set, checks it against Spark, and returns how many tasks of
    its window gave their rows to Spark's sorter."""
    with session_confs(spark, confs):
        assert_grouped_and_same(spark, query)
        _, reports = grouped_windows(spark, query)
        return reports[0].metrics.get("numSortedTasks", 0)


@GENERATED_ONLY
def test_memory_refused_falls_back_to_sparks_sort(grouped, skewed):
    # A budget below one page of rows: each task gives its rows to Spark's spilling sorter.
    query = (f"select k, id, row_number() over w rn, lag(v) over w lg "
             f"from {skewed} window w as (partition by k order by o, id)")
    budget = {"spark.fastwindow.groupSort.maxMemoryBytes": "2k"}
    assert sorted_tasks_with(grouped, query, budget) > 0


def test_whole_partitions_without_order_by_stay_sorted(grouped):
    # No ORDER BY: Spark radix-sorts one key and moves a group's rows about, so order-sensitive
    # functions (a floating sum, first) stay over Spark's sort.
    query = "select p, id, sum(d) over (partition by p) s, first(i) over (partition by p) f from t"
    fast, reports = grouped_windows(grouped, query)
    assert not reports and "Sort " in fast.plan, fast.plan
    assert_same_as_spark(grouped, query)


def test_stacked_windows_and_an_ordered_result(grouped):
    # A window above by other keys groups again; the final ORDER BY sorts.
    query = ("select p, id, rn, sum(rn) over (partition by g order by id) s from ("
             "select p, g, id, row_number() over (partition by p order by i, id) rn from t) "
             "order by id")
    fast, reports = grouped_windows(grouped, query)
    assert len(reports) == 2, fast.plan
    vanilla = run(grouped, query, fastwindow_on=False)
    assert fast.rows == vanilla.rows


@GENERATED_ONLY
def test_rows_come_out_in_sparks_order(grouped, skewed):
    # No ORDER BY in the query: the rows as collected are the window's output order, which must
    # be Spark's (groups in key order, NULL first; ties in input order). The order key ties in
    # tens, so row_number and lag see ties.
    for key in ["k", "cast(k as string)", "k, v % 3"]:
        w = f"partition by {key} order by o"
        query = (f"select k, id, row_number() over ({w}) rn, lag(id) over ({w}) lg "
                 f"from {skewed}")
        fast, grouped_reports = grouped_windows(grouped, query)
        assert grouped_reports, fast.plan
        assert fast.rows == run(grouped, query, fastwindow_on=False).rows, key


@GENERATED_ONLY
def test_a_window_above_by_the_same_keys_reads_the_order_as_it_is(grouped, skewed):
    # The lower window's output is in (k, o) order, which the upper one (reading rn, so Spark
    # does not collapse the two) requires too: neither a Sort nor a second grouping between them,
    # and a sort-merge join by k reads it unsorted.
    query = (f"select a.k, a.id, a.rn, a.s, b.n from (select k, id, rn, "
             f"sum(rn) over (partition by k order by o rows 2 preceding) s from (select k, id, o, "
             f"row_number() over (partition by k order by o) rn from {skewed})) a join "
             f"(select k, count(*) n from {skewed} group by k) b on a.k = b.k")
    with session_confs(grouped, {"spark.sql.autoBroadcastJoinThreshold": "-1",
                                 "spark.sql.adaptive.enabled": "false"}):
        fast, reports = grouped_windows(grouped, query)
        assert len(fast.reports) == 2 and len(reports) == 1, fast.plan
        assert "SortMergeJoin" in fast.plan, fast.plan
        assert fast.plan.count("Sort [") == 1, fast.plan  # the aggregate's side only
        assert_same_as_spark(grouped, query)


@GENERATED_ONLY
def test_nearly_distinct_keys_go_to_sparks_sorter(grouped, skewed):
    # 30k of the 60k rows have a key of their own; a sample of the rows from id 30000 on is
    # nearly all distinct keys, so each task hands its rows to Spark's sorter.
    query = (f"select k, id, row_number() over w rn, lag(v) over w lg "
             f"from {skewed} where id >= 30000 window w as (partition by k order by o)")
    assert sorted_tasks_with(grouped, query, {SAMPLE_ROWS: "1000"}) > 0
    assert sorted_tasks_with(grouped, query, {SAMPLE_ROWS: "0"}) == 0


@GENERATED_ONLY
def test_repeated_keys_stay_grouped(grouped, skewed):
    query = (f"select k, id, row_number() over (partition by k order by o) rn "
             f"from (select id % 100 k, id, o from {skewed})")
    assert sorted_tasks_with(grouped, query, {SAMPLE_ROWS: "1000"}) == 0


def test_top_k_below_a_grouped_window(grouped):
    query = ("select * from (select p, i, id, rank() over (partition by p order by i) r, "
             "lag(id) over (partition by p order by i) lg from t) where r <= 2")
    assert_same_as_spark(grouped, query)


@GENERATED_ONLY
def test_on_by_default(spark):
    fast, reports = grouped_windows(spark, windows("p", "i"))
    assert reports and "Sort " not in fast.plan, fast.plan


@GENERATED_ONLY
def test_switched_off_spark_sorts(spark):
    query = windows("p", "i")
    with session_confs(spark, {GROUP_SORT: "false"}):
        fast, reports = grouped_windows(spark, query)
        assert not reports and "Sort " in fast.plan, fast.plan
        assert_rows_equal(fast.rows, run(spark, query, fastwindow_on=False).rows)
