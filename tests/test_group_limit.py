"""Top-k per group (``row_number``/``rank``/``dense_rank`` <= k) against Spark.

Spark's optimizer puts a group limit below such a window (partial before the shuffle, final after
it), and sorts every row for each; fastwindow plans ``FastGroupLimit`` there, which keeps each
group's candidates in a hash map and needs no sort. Every query runs with fastwindow on and off
(both evaluators for each order key type: the interpreted one also skips the integral bound fast
path) and must give the same rows. row_number over tied ORDER BY keys keeps an arbitrary choice
of the tied rows, in Spark as here, so those queries select only the columns that choice cannot
change.
"""

import pytest
from helpers import GROUP_LIMITS, assert_falls_back, assert_same_as_spark, run, session_confs

#: Tests run on the generated evaluator only (tests/conftest.py): the interpreted twin adds
#: nothing to them.
GENERATED_ONLY = pytest.mark.generated_only(
    "the operator's hashing, memory and planning, the same Scala on both evaluators; the twin's"
    " ordering runs test_top_k_over_each_order_key_type.")

#: The other tests run on each evaluator in a run of its own (tests/conftest.py): VERIFY
#: checks FastWindow's evaluators, not FastGroupLimit's interpreted comparisons and bounds.
pytestmark = pytest.mark.separate_twin(
    "FastGroupLimit's interpreted comparisons and bounds (VERIFY covers FastWindow's)")

ORDER_KEY_TYPES = ["by", "sh", "i", "l", "f", "d", "dec", "bigdec", "s", "bin", "bo", "dt", "ts",
                   "ntz"]


def top_k(function, key, k, partition="p", where=None, columns=None, table="t"):
    """One top-k query: ``columns`` default to the keys and the rank (safe under ties)."""
    part = f"partition by {partition} " if partition else ""
    keys = ", ".join(order.split()[0] for order in key.split(","))
    cols = columns or (f"{partition}, {keys}" if partition else keys)
    inner = f"select {cols}, {function} over ({part}order by {key}) r from {table}"
    return f"select * from ({inner}) where {where or f'r <= {k}'}"


def all_functions(key, k, partition="p", table="t"):
    """The same top-k by each rank-like function, as one query (a union)."""
    return " union all ".join(
        f"select '{name}' f, * from ({top_k(fn, key, k, partition, table=table)})"
        for name, fn in (("rn", "row_number()"), ("rk", "rank()"), ("dr", "dense_rank()")))


def limits_of(spark, query):
    fast = run(spark, query, fastwindow_on=True)
    return fast, [r for r in fast.reports if r.operator in GROUP_LIMITS]


@pytest.mark.parametrize("key", ORDER_KEY_TYPES)
def test_top_k_over_each_order_key_type(spark, key):
    assert_same_as_spark(spark, all_functions(key, 2))
    assert_same_as_spark(spark, all_functions(f"{key} desc nulls last", 3))


@pytest.mark.parametrize("key", ["by", "i", "l", "dt", "ts"])
def test_integral_order_keys_with_nulls_on_either_side(spark, key):
    """Integral ORDER BY keys compare as longs beside each group's kept rows: NULLs placed by
    the other two orderings of nulls too."""
    assert_same_as_spark(spark, all_functions(f"{key} nulls last", 3))
    assert_same_as_spark(spark, all_functions(f"{key} desc nulls first", 2))


@GENERATED_ONLY
@pytest.mark.parametrize("k", [1, 2, 5, 1000])
def test_top_k_keeps_whole_rows_under_a_total_order(spark, k):
    for fn in ("row_number()", "rank()", "dense_rank()"):
        assert_same_as_spark(spark, top_k(fn, "i desc, id", k, columns="*"))
        assert_same_as_spark(spark, top_k(fn, "g, id desc", k, partition="p, bo", columns="*"))


@GENERATED_ONLY
@pytest.mark.parametrize("partition", ["g", "l", "s", "dt", "ts", "dec", "bigdec", "bo", "bin",
                                       "p, s", "p % 3", "coalesce(p, -1) + g",
                                       # Spark normalizes floating keys (-0.0, NaNs) first.
                                       "d", "f", "p, d"])
def test_top_k_per_each_partition_key_type(spark, partition):
    query = all_functions("i", 2, partition=partition)
    fast, limits = limits_of(spark, query)
    assert limits and all(r.operator == "FastGroupLimit" for r in limits), fast.plan
    assert_same_as_spark(spark, query)


@GENERATED_ONLY
def test_nested_partition_keys_stay_on_spark_with_a_reason(spark):
    # Groups are found by hashing the keys' bytes; nested keys (which may hold floats or
    # collated strings) are left to Spark's group limit; the window above still runs here.
    query = top_k("rank()", "i", 2, partition="arr")
    fast, limits = limits_of(spark, query)
    assert limits and all(r.operator == "WindowGroupLimit" for r in limits), fast.plan
    assert all("is of type array<int>" in (r.reason or "") for r in limits), limits
    assert [r.reasons[0][0] for r in limits] == ["unsupported-type"] * len(limits)
    vanilla = run(spark, query, fastwindow_on=False)
    from helpers import assert_rows_equal
    assert_rows_equal(fast.rows, vanilla.rows)


def test_ties_are_kept_by_rank_and_dense_rank(spark):
    # g has 5 values over 240 rows: rank <= 1 keeps every row tied first, dense_rank <= 2 the
    # rows of the two smallest values, whatever their number.
    assert_same_as_spark(spark, top_k("rank()", "g", 1, columns="p, g, id"))
    assert_same_as_spark(spark, top_k("dense_rank()", "g", 2, columns="p, g, id"))
    assert_same_as_spark(spark, top_k("rank()", "g", 1, partition="bo", columns="bo, g, id"))


def test_top_k_without_partition_by(spark):
    # rank/dense_rank without PARTITION BY keep a group limit over all rows (row_number becomes
    # a plain LIMIT in Spark's optimizer).
    for fn in ("rank()", "dense_rank()"):
        assert_same_as_spark(spark, top_k(fn, "g desc", 2, partition=None, columns="g, id"))


def test_top_k_with_running_aggregates_in_the_same_window(spark):
    # Spark infers the limit also when the window computes running frames: the survivors must be
    # a whole prefix of each group, so those frames see the same rows.
    query = """select * from (
                 select p, id, i, rank() over w r, sum(l) over w s, count(*) over w c,
                        max(d) over w m
                 from t window w as (partition by p order by i nulls last, id
                                     rows between unbounded preceding and current row))
               where r <= 3"""
    assert_same_as_spark(spark, query)


def test_several_limits_in_one_filter(spark):
    query = """select * from (
                 select p, id, i, rank() over (partition by p order by i) r,
                        dense_rank() over (partition by p order by i) dr,
                        row_number() over (partition by p order by i, id) rn from t)
               where r <= 2 and rn <= 3 and dr <= 2"""
    assert_same_as_spark(spark, query)


def test_top_k_on_empty_input(spark):
    rows = assert_same_as_spark(spark, all_functions("i", 2, table="empty_t"), empty_input=True)
    assert rows == []


@pytest.fixture(scope="module")
def skewed(spark_session):
    """One hot key (20k rows), 2000 small keys, a NULL key, and 30k keys of one row each."""
    spark_session.range(0, 60000, 1, 3).selectExpr(
        "case when id < 20000 then 0 when id < 28000 then 1 + id % 2000 "
        "when id < 30000 then null else id end as k",
        "id", "cast(pmod(xxhash64(id), 1000) as int) as v",
        "case when id % 17 = 0 then null else pmod(xxhash64(id, 1), 100000) end as o",
    ).createOrReplaceTempView("skewed")
    yield "skewed"


@GENERATED_ONLY
@pytest.mark.parametrize("fn,k", [("row_number()", 1), ("rank()", 3), ("dense_rank()", 2)])
def test_skewed_hot_and_distinct_keys(spark, skewed, fn, k):
    assert_same_as_spark(spark, top_k(fn, "o desc nulls first, id", k, partition="k",
                                      columns="*", table=skewed))
    assert_same_as_spark(spark, top_k(fn, "v", k, partition="k", columns="k, v", table=skewed))


@GENERATED_ONLY
@pytest.mark.parametrize("aqe", ["true", "false"])
def test_adaptive_execution_on_and_off(spark, skewed, aqe):
    spark.conf.set("spark.sql.adaptive.enabled", aqe)
    try:
        assert_same_as_spark(spark, top_k("row_number()", "o, id", 1, partition="k",
                                          columns="*", table=skewed))
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")


def test_no_sort_is_planned_below_the_window(spark, skewed):
    query = top_k("row_number()", "o desc, id", 1, partition="k", columns="*", table=skewed)
    fast = run(spark, query, fastwindow_on=True)
    assert "FastGroupLimit" in fast.plan and "Sort " not in fast.plan, fast.plan
    limits = [r for r in fast.reports if r.operator == "FastGroupLimit"]
    assert len(limits) == 2 and all("no sort" in (r.note or "") for r in limits)
    assert "Sort " in run(spark, query, fastwindow_on=False).plan


@GENERATED_ONLY
def test_memory_refused_falls_back_to_emitting_and_sorting(spark, skewed):
    # A budget of a few rows: the partial limit emits what it holds each time it is refused, and
    # the final one gives its rows to Spark's sorter; results and their order are the same.
    spark.conf.set("spark.fastwindow.groupLimit.maxMemoryBytes", "2k")
    try:
        for fn, k in (("row_number()", 1), ("rank()", 3), ("dense_rank()", 2)):
            query = top_k(fn, "o desc nulls first, id", k, partition="k", columns="*",
                          table=skewed)
            assert_same_as_spark(spark, query)
            metrics = {}
            for r in run(spark, query, fastwindow_on=True).reports:
                metrics.update(r.metrics)
            assert metrics.get("numEarlyEmits", 0) > 0 and metrics.get("numSortedTasks", 0) > 0, \
                metrics
    finally:
        spark.conf.unset("spark.fastwindow.groupLimit.maxMemoryBytes")


def metrics_by_mode(spark, query):
    """The metrics of the query's partial and final FastGroupLimit, by mode."""
    _, limits = limits_of(spark, query)
    return {r.window_expressions[0].rsplit("(", 1)[1].rstrip(")"): r.metrics for r in limits}


@GENERATED_ONLY
@pytest.mark.parametrize("fn,k", [("row_number()", 1), ("rank()", 3), ("dense_rank()", 2),
                                  ("rank()", 9)])
def test_nearly_distinct_keys_pass_through_and_sort(spark, skewed, fn, k):
    # From id 30000 on every row has a key of its own. Limits up to 8 rows keep their rows in an
    # arena: the partial one passes rows on only after its bet (16 steps: 16,000 keys). A limit of
    # 9 keeps groups as objects of their own: after 2000 rows the partial limit passes its rows
    # on. Either final limit sorts (groups read in key order would read the rows in random
    # order). The same rows either way.
    query = top_k(fn, "o desc nulls first, id", k, partition="k", columns="*",
                  table=f"(select * from {skewed} where id >= 30000)")
    in_arena = k <= 8
    with session_confs(spark, {"spark.fastwindow.distinctKeys.sampleRows": "1000"}):
        assert_same_as_spark(spark, query)
        metrics = metrics_by_mode(spark, query)
        passed = metrics["Partial"].get("numPassedRows", 0)
        assert 0 < passed < (30000 - 16000 if in_arena else 30000), metrics
        assert metrics["Final"].get("numSortedTasks", 0) > 0, metrics
    # Below the sample (the default is 65,536 rows; each task has about 10,000) nothing changes.
    metrics = metrics_by_mode(spark, query)
    assert metrics["Partial"].get("numPassedRows", 0) == 0, metrics
    assert metrics["Final"].get("numSortedTasks", 0) == 0, metrics


@GENERATED_ONLY
@pytest.mark.parametrize("fn,k,passes", [("rank()", 3, True), ("dense_rank()", 2, True),
                                          ("row_number()", 1, False)])
def test_keys_mostly_new_pass_a_partial_top_k_through(spark, fn, k, passes):
    # Four keys in every five rows, 32,000 keys per task, past the arena's bet (16,000 keys):
    # rank() <= 3 and dense_rank() <= 2 drop no row (a key has one or two) and pass the rest on;
    # row_number() <= 1 drops one row in five, which pays for its arena (one in ten is the line).
    table = "(select id, (id * 4) div 5 as k, id % 7 as o from range(0, 80000, 1, 2))"
    query = top_k(fn, "o, id", k, partition="k", columns="*", table=table)
    with session_confs(spark, {"spark.fastwindow.distinctKeys.sampleRows": "1000"}):
        assert_same_as_spark(spark, query)
        passed = metrics_by_mode(spark, query)["Partial"].get("numPassedRows", 0)
        assert (passed > 0) == passes, passed


@GENERATED_ONLY
@pytest.mark.parametrize("fn,k", [("row_number()", 1), ("rank()", 3), ("rank()", 9)])
def test_keys_cycling_are_held_again_once_they_come_back(spark, fn, k):
    # Keys cycle in id order (k = id % 3000, later rows first): a task's first 3,000 rows all
    # have new keys, then every key comes back. Limits up to 8 rows (an arena) hold 16 steps of
    # keys before they judge: the whole cycle, from the first row (nothing passed on). A limit of
    # 9 (objects) judged on its first rows passes rows on; judged through the task, it holds
    # again once the keys come back often enough (60 rows per key and task).
    table = "(select id, id % 3000 as k, -id as o from range(0, 360000, 1, 2))"
    query = top_k(fn, "o", k, partition="k", columns="*", table=table)
    with session_confs(spark, {"spark.fastwindow.distinctKeys.sampleRows": "1000"}):
        assert_same_as_spark(spark, query)
        partial = metrics_by_mode(spark, query)["Partial"]
        if k <= 8:
            assert partial.get("numPassedRows", 0) == 0, partial
        else:
            assert partial.get("numHoldResumes", 0) >= 2, partial
            assert 0 < partial.get("numPassedRows", 0) < 180000, partial
            assert partial["numOutputRows"] < 360000, partial


@GENERATED_ONLY
def test_repeated_keys_are_limited_by_hash(spark, skewed):
    query = top_k("rank()", "o, id", 2, partition="k", columns="*",
                  table=f"(select id % 100 k, id, v, o from {skewed})")
    with session_confs(spark, {"spark.fastwindow.distinctKeys.sampleRows": "1000"}):
        metrics = metrics_by_mode(spark, query)
        assert metrics["Partial"].get("numPassedRows", 0) == 0, metrics
        assert metrics["Final"].get("numSortedTasks", 0) == 0, metrics


@GENERATED_ONLY
def test_group_limit_can_be_switched_off(spark):
    spark.conf.set("spark.fastwindow.groupLimit.enabled", "false")
    try:
        assert_falls_back(spark, top_k("rank()", "i", 2), "spark.fastwindow.groupLimit.enabled")
        fast, limits = limits_of(spark, top_k("rank()", "i", 2))
        assert limits and all(r.operator == "WindowGroupLimit" for r in limits), limits
        assert any(r.operator == "FastWindow" for r in fast.reports)
    finally:
        spark.conf.unset("spark.fastwindow.groupLimit.enabled")


@GENERATED_ONLY
def test_partial_limit_is_skipped_when_its_input_is_already_clustered(spark):
    # t is one partition: no shuffle is needed, and the final limit reads the partial's input
    # directly (what Spark's RemoveRedundantWindowGroupLimits does by removing its partial node).
    query = top_k("row_number()", "i, id", 1, columns="*")
    assert_same_as_spark(spark, query)
    fast, limits = limits_of(spark, query)
    assert "Exchange" not in fast.plan, fast.plan
    rows = {r.window_expressions[0]: r.metrics.get("numOutputRows", 0) for r in limits}
    assert rows == {"row_number() <= 1 (Final)": len(fast.rows),
                    "row_number() <= 1 (Partial)": 0}, rows
