"""Whole-partition aggregates without shuffling the rows, against Spark.

``v / sum(v) OVER (PARTITION BY k)`` over a scan: fastwindow reads the scan twice where its rows
are (``KeyAggregatesWindowExec``, shown as ``FastWindow`` "rows not shuffled"): each map task
aggregates its rows per key, the driver merges the tasks' states and broadcasts each key's results,
and the rows are joined to them. Only where the input is a scan under filters and projections and
no operator above needs the rows clustered by key; with too many keys, or an integral sum that
could overflow in some order, the rows are shuffled by key as before. Every query runs with
fastwindow on and off and must give the same rows.
"""

import pytest
from helpers import assert_same_as_spark, assert_same_outcome_with_ansi, run, session_confs
from test_hash_window import AGGREGATES, whole

NOT_SHUFFLED = "rows not shuffled"
MAX_KEYS = "spark.fastwindow.keyAggregates.maxKeys"

#: The path's planning and fallbacks are the same Scala on both evaluators; the per-key
#: aggregation's projections run on both in test_every_aggregate_over_every_key_kind.
GENERATED_ONLY = pytest.mark.generated_only(
    "the rule's placement and the path's fallbacks, the same Scala on both evaluators")


@pytest.fixture(scope="module")
def files(spark_session, tmp_path_factory):
    """The all-types rows of ``t`` (NULL, NaN and -0.0 keys among them) as Parquet files in two
    partitions, and 30k rows of 3 files by range: scans that can be read twice."""
    path = str(tmp_path_factory.mktemp("key_aggregates"))
    spark_session.table("t").repartition(2).write.parquet(path + "/t")
    spark_session.read.parquet(path + "/t").createOrReplaceTempView("t_files")
    spark_session.range(0, 30000, 1, 3).selectExpr(
        "cast(id % 700 as string) k", "id % 5 g", "id", "pmod(xxhash64(id), 1000) - 500 v",
    ).write.parquet(path + "/wide")
    spark_session.read.parquet(path + "/wide").createOrReplaceTempView("wide_files")
    yield


def key_aggregate_windows(spark, query):
    fast = run(spark, query, fastwindow_on=True)
    return fast, [r for r in fast.reports if NOT_SHUFFLED in (r.note or "")]


#: Each kind of key with ANSI off; ANSI on (the aggregates' checked arithmetic, the same for any
#: key) once.
KEY_KINDS = [(k, False) for k in ["s", "p, g", "d", "f, s", "dt, bo", "bin", "p % 3"]] + \
    [("p, g", True)]


@pytest.mark.parametrize("partition,ansi", KEY_KINDS)
def test_every_aggregate_over_every_key_kind(spark, files, partition, ansi):
    query = whole(AGGREGATES, partition=partition, table="t_files")
    fast, joined = key_aggregate_windows(spark, query)
    assert joined and "Exchange" not in fast.plan, fast.plan
    assert joined[0].metrics.get("numKeysBroadcast", 0) > 0, joined[0].metrics
    assert_same_as_spark(spark, query, ansi=ansi)


@pytest.mark.parametrize("aqe", ["true", "false"])
def test_share_of_total_over_files(spark, files, aqe):
    query = ("select k, id, v / sum(v) over (partition by k) share, "
             "count(*) over (partition by k, g) n, max(id) over (partition by g) top "
             "from wide_files where id % 11 <> 0")
    with session_confs(spark, {"spark.sql.adaptive.enabled": aqe}):
        fast, joined = key_aggregate_windows(spark, query)
        # The lowest window reads the scan; the two above it read its output, by g (shuffled).
        assert len(joined) == 1 and len(fast.reports) == 3, fast.plan
        assert_same_as_spark(spark, query)


@GENERATED_ONLY
def test_empty_input(spark, files):
    query = whole(["sum(v)", "count(*)"], partition="k", table="wide_files", columns="id") + \
        " where id < 0"
    query = f"select * from ({query})"
    assert assert_same_as_spark(spark, query, empty_input=True) == []


@GENERATED_ONLY
@pytest.mark.parametrize("aqe", ["true", "false"])
def test_too_many_keys_shuffle_the_rows(spark, files, aqe):
    """Past maxKeys the rows are shuffled by key and run as Spark's plan runs them (its sort, its
    window): the same rows, and the fallback counted."""
    query = whole(["sum(v)", "count(*)", "avg(v)", "max(id)"], partition="k", table="wide_files",
                  columns="id, v")
    with session_confs(spark, {MAX_KEYS: "100", "spark.sql.adaptive.enabled": aqe}):
        assert_same_as_spark(spark, query)
        _, joined = key_aggregate_windows(spark, query)
        assert joined[0].metrics.get("numShuffledFallbacks", 0) == 1, joined[0].metrics
        assert joined[0].metrics.get("numKeysBroadcast", 0) == 0, joined[0].metrics


@GENERATED_ONLY
@pytest.mark.parametrize("over", ["partition by g", ""], ids=["by-key", "all-rows"])
def test_a_sum_that_may_overflow_shuffles_the_rows_and_matches_spark(spark, files, over):
    # Two tasks' positive parts together pass the long range: some order could overflow under
    # ANSI, so the rows are shuffled (by key, or all into one task) and Spark's order decides;
    # without ANSI the sum wraps.
    query = (f"select id, sum(x) over ({over}) total from (select g, id, case when "
             "id % 2 = 0 then 4611686018427387904 else -1 end x from wide_files)")
    assert_same_as_spark(spark, query, ansi=False)
    with session_confs(spark, {"spark.sql.ansi.enabled": "false"}):
        _, joined = key_aggregate_windows(spark, query)
        assert joined[0].metrics.get("numShuffledFallbacks", 0) == 1, joined[0].metrics
    assert assert_same_outcome_with_ansi(spark, query) is not None  # both overflow


@GENERATED_ONLY
@pytest.mark.parametrize("query", [
    # A second window by the same key relies on the first one's clustering.
    "select k, id, n, rank() over (partition by k order by id) r from "
    "(select k, id, count(*) over (partition by k) n from wide_files)",
    # So does an aggregate by the key above it.
    "select k, max(n) from (select k, count(*) over (partition by k) n from wide_files) "
    "group by k",
    # A join below is not a scan: it would be computed twice.
    "select a.k, a.id, sum(b.v) over (partition by a.k) s from wide_files a "
    "join (select id, v from wide_files where id % 3 = 0) b on a.id = b.id",
])
def test_where_the_rows_stay_shuffled(spark, files, query):
    with session_confs(spark, {"spark.sql.autoBroadcastJoinThreshold": "-1"}):
        fast, joined = key_aggregate_windows(spark, query)
        assert not joined, fast.plan
        assert "by hash, no sort" in fast.plan, fast.plan
        assert_same_as_spark(spark, query)


@GENERATED_ONLY
def test_a_window_by_other_keys_above_still_gets_its_rows_clustered(spark, files):
    # The upper window (by g) needs its own shuffle either way: the lower one (by k) need not
    # keep its rows clustered, and does not shuffle them.
    query = ("select k, g, id, n, sum(v) over (partition by g order by id) r from "
             "(select k, g, id, v, count(*) over (partition by k) n from wide_files)")
    fast, joined = key_aggregate_windows(spark, query)
    assert joined, fast.plan
    assert_same_as_spark(spark, query)


@GENERATED_ONLY
@pytest.mark.parametrize("transpose", [True, False])
def test_sparks_window_functions_in_multiple_selects(spark, transpose):
    # Spark's DataFrameWindowFunctionsSuite counts 2 exchanges here without TransposeWindow: the
    # lower window by (sno, pno) over local rows needs none with fastwindow, the upper one by sno
    # shuffles; with TransposeWindow the window by sno comes first and the one above relies on
    # its clustering, so the rows are shuffled once either way. The rows are Spark's.
    query = ("select sno, pno, qty, sum_qty_2, sum(qty) over (partition by sno) sum_qty_1 from "
             "(select sno, pno, qty, sum(qty) over (partition by sno, pno) sum_qty_2 from values "
             "('S1', 'P1', 100), ('S1', 'P1', 700), ('S2', 'P1', 200), ('S2', 'P2', 300) "
             "as t(sno, pno, qty))")
    excluded = "" if transpose else "org.apache.spark.sql.catalyst.optimizer.TransposeWindow"
    with session_confs(spark, {"spark.sql.optimizer.excludedRules": excluded}):
        fast, joined = key_aggregate_windows(spark, query)
        assert len(joined) == (0 if transpose else 1), fast.plan
        final = fast.plan.split("== Initial Plan ==")[0]
        assert final.count("Exchange hashpartitioning") == 1, fast.plan
        assert_same_as_spark(spark, query)


@GENERATED_ONLY
def test_can_be_switched_off(spark, files):
    query = whole(["sum(v)", "count(*)"], partition="k", table="wide_files", columns="id")
    with session_confs(spark, {"spark.fastwindow.keyAggregates.enabled": "false"}):
        fast, joined = key_aggregate_windows(spark, query)
        assert not joined and "by hash, no sort" in fast.plan, fast.plan


# ---------------------------------------------------------------------------------------------
# OVER (): aggregates over all rows, which Spark computes in one task after moving every row
# there, computed in every task where the rows are (one key for all of them).
# ---------------------------------------------------------------------------------------------

ALL_ROWS = "rows not shuffled into one task"


def over_all_rows(aggregates, table="t_files", columns="id"):
    exprs = ", ".join(f"{a} over () a{k}" for k, a in enumerate(aggregates))
    return f"select {columns}, {exprs} from {table}"


def all_rows_windows(spark, query):
    fast = run(spark, query, fastwindow_on=True)
    return fast, [r for r in fast.reports if ALL_ROWS in (r.note or "")]


@pytest.mark.parametrize("ansi", [False, True])
def test_aggregates_over_all_rows_run_where_the_rows_are(spark, files, ansi):
    query = over_all_rows(AGGREGATES)
    fast, spread = all_rows_windows(spark, query)
    assert spread and "Exchange" not in fast.plan, fast.plan
    assert spread[0].metrics.get("numKeysBroadcast") == 1, spread[0].metrics
    assert_same_as_spark(spark, query, ansi=ansi)


@GENERATED_ONLY
@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("over", ["partition by k", ""], ids=["by-key", "all-rows"])
def test_floating_sums_merged(spark, files, exact, over):
    """Merged from every task's partial sums, a floating sum or average may differ from Spark's in
    the last bits (as across ranges with ORDER BY); spark.fastwindow.exactFloats keeps Spark's
    order (the rows shuffled and sorted by key, or moved into one task), bit for bit. Moments
    (stddev) are never merged: per key they run by hash over the shuffled rows unless exactFloats
    (test_hash_window.py), over all rows in one task."""
    x, w = "cast(v as double) / 7", f"over ({over})"
    sums = (f"select id, sum({x}) {w} s, avg({x}) {w} a, sum(abs({x})) {w} scale, "
            f"sum(abs({x})) {w} / count(*) {w} avg_scale from wide_files")
    moments = f"select id, stddev({x}) {w} sd, sum({x} * {x}) {w} scale from wide_files"
    with session_confs(spark, {"spark.fastwindow.exactFloats": str(exact).lower()}):
        fast, merged = key_aggregate_windows(spark, sums)
        assert bool(merged) != exact, fast.plan
        tolerances = None if exact else {
            "s": "scale", "a": "avg_scale", "scale": "scale", "avg_scale": "avg_scale"}
        assert_same_as_spark(spark, sums, tolerances=tolerances)
        fast, merged = key_aggregate_windows(spark, moments)
        assert not merged, fast.plan
        if not over:
            assert "in one task: stddev" in fast.plan, fast.plan
        else:
            assert ("by hash" in fast.plan) != exact, fast.plan
        assert_same_as_spark(spark, moments,
                             tolerances=None if exact else {"sd": "scale", "scale": "scale"})


@GENERATED_ONLY
@pytest.mark.parametrize("aqe", ["true", "false"])
def test_all_rows_with_other_windows_and_empty_input(spark, files, aqe):
    with session_confs(spark, {"spark.sql.adaptive.enabled": aqe}):
        query = ("select id, v - sum(v) over () / count(*) over () d, max(v) over () m, "
                 "row_number() over (order by v, id) r from wide_files where id % 3 <> 0")
        fast, spread = all_rows_windows(spark, query)
        assert spread, fast.plan
        assert_same_as_spark(spark, query)
        empty = f"select * from ({over_all_rows(['sum(v)', 'count(*)'], 'wide_files')}) " \
                "where id < 0"
        assert assert_same_as_spark(spark, empty.replace("from wide_files)", "from wide_files "
                                                         "where id < 0)"), empty_input=True) == []


@GENERATED_ONLY
def test_all_rows_stay_in_one_task_where_a_parent_relies_on_it(spark, files):
    # The aggregate by k above reads the window's one task as clustered by k: no exchange of its
    # own, so the window keeps it.
    query = "select k, max(n) from (select k, count(*) over () n from wide_files) group by k"
    fast, spread = all_rows_windows(spark, query)
    assert not spread, fast.plan
    assert_same_as_spark(spark, query)
