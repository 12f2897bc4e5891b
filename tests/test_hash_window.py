"""Whole-partition aggregates without ORDER BY, per key without a sort, against Spark.

``sum(v) OVER (PARTITION BY k)`` and its kin need no order: Spark sorts every row of the task by
the keys only to find where each group starts. fastwindow plans its hash window there
(``HashWindowAggregateExec``, shown as ``FastWindow`` "by hash, no sort"): one pass adds each row
to its key's aggregation buffer and keeps the row in Spark's spillable buffer, a second emits the
rows joined to their group's results. Only aggregates whose result does not depend on the order
of a group's rows (or, unless ``spark.fastwindow.exactFloats``, only by float rounding) run there,
by keys of any hashable type. Every query runs with fastwindow on and
off, and must give the same rows (both evaluators where the aggregates and keys are the subject).
"""

import pytest
from helpers import assert_rows_equal, assert_same_as_spark, run, session_confs

#: Tests run on the generated evaluator only (tests/conftest.py): the interpreted twin adds
#: nothing to them.
GENERATED_ONLY = pytest.mark.generated_only(
    "the operator's planning, memory and partitioning, the same Scala on both evaluators; the "
    "twin's projections run test_every_declarative_aggregate_per_key and "
    "test_each_partition_key_type.")

#: The other tests run on each evaluator in a run of its own (tests/conftest.py): VERIFY
#: checks FastWindow's evaluators, not the hash window's interpreted per-key aggregation.
pytestmark = pytest.mark.separate_twin(
    "the hash window's interpreted per-key aggregation (VERIFY covers FastWindow's)")

NO_SORT = "no sort below it: whole-partition aggregates"


@pytest.fixture(autouse=True)
def rows_shuffled_by_key(spark):
    """This module tests the hash window over rows shuffled by key; over a range or file scan,
    fastwindow would join the keys' aggregates to the rows without shuffling them
    (test_key_aggregates.py tests that path)."""
    with session_confs(spark, {"spark.fastwindow.keyAggregates.enabled": "false"}):
        yield


def hash_windows(spark, query):
    fast = run(spark, query, fastwindow_on=True)
    return fast, [r for r in fast.reports if NO_SORT in (r.note or "")]


def whole(aggregates, partition="s", table="t", columns="id"):
    over = f"over (partition by {partition})"
    exprs = ", ".join(f"{a} {over} a{k}" for k, a in enumerate(aggregates))
    return f"select {columns}, {exprs} from {table}"


#: Aggregates whose result does not depend on the order of a group's rows.
AGGREGATES = ["count(*)", "count(i)", "count(s, bo)", "sum(i)", "sum(l)", "sum(sh)", "sum(by)",
              "sum(dec)", "avg(cast(dec as decimal(28, 4)))", "min(i)", "max(l)", "min(dec)",
              "max(dec)", "min(bigdec)", "min(dt)", "max(ts)", "max(ntz)",
              "bool_and(bo)", "bool_or(bo)", "count_if(bo)", "bit_xor(by)", "bit_and(l)",
              "bit_or(i)", "max(bo)"]

#: Spark adds a group's rows in the order its sort leaves them, which is not the input order (its
#: in-memory sorter moves rows to make room for NULL keys): these depend on that order, or their
#: overflow could (38-digit decimal sums), so they stay on FastWindow over sorted input.
ORDER_DEPENDENT = ["first(l)", "last(d)", "first(i, true)", "min(d)", "max(f)", "sum(bigdec)",
                   "avg(bigdec)", "max_by(id, g)"]

#: Floating aggregates, whose results depend on that order only by rounding, each with the
#: aggregate that scales the difference allowed (sums of |x| and of x^2 are floating sums too).
X = "cast(l as double) / 7"
ROUNDED = {f"sum({X})": "a0", f"avg({X})": "a0", f"sum(abs({X}))": "a0",
           f"stddev({X})": "a1", f"var_pop({X})": "a1", f"sum({X} * {X})": "a1",
           "sum(f)": "a0", "avg(i)": "a0",
           # Spark rewrites it into avg(unscaledvalue(dec)) / 100: an average of longs in a double
           # sum, exact at these magnitudes (a decimal result, compared exactly).
           "avg(dec)": "a0"}


@pytest.mark.parametrize("ansi", [False, True])
def test_every_declarative_aggregate_per_key(spark, ansi):
    query = whole(AGGREGATES)
    fast, hashed = hash_windows(spark, query)
    assert hashed and "Sort " not in fast.plan, fast.plan
    assert_same_as_spark(spark, query, ansi=ansi)


#: Keys Spark sorts by comparisons, and keys it radix-sorts (one integral, date, time, floating or
#: short decimal key: the hash window is faster there too, see the README's share-of-total).
HASHED_KEYS = ["s", "bin", "bigdec", "p, s", "p, g", "dt, bo", "cast(p as string)",
               # Spark normalizes floating keys (-0.0, NaNs) first.
               "p, d", "f, s",
               "p", "g", "l", "dt", "ts", "dec", "bo", "p % 3", "coalesce(p, -1) + g", "d", "f"]


@pytest.mark.parametrize("partition", HASHED_KEYS)
def test_each_partition_key_type(spark, partition):
    query = whole(["sum(l)", "count(*)", "max(dt)", "min(id)"], partition=partition)
    fast, hashed = hash_windows(spark, query)
    assert hashed and "Sort " not in fast.plan, fast.plan
    assert_same_as_spark(spark, query)


def test_rows_of_variable_width_joined_to_results_of_variable_width(spark):
    # Each output row is an input row's columns, then its group's results: strings, binaries and
    # 38-digit decimals on both sides.
    query = whole(["min(bigdec)", "count(*)", "max(dec)"], partition="p",
                  columns="id, s, bin, bigdec, i")
    fast, hashed = hash_windows(spark, query)
    assert hashed, fast.plan
    assert_same_as_spark(spark, query)


def test_share_of_total_and_a_ranked_window_above(spark):
    # The hash window's output has no order: the window above sorts it, and the filter and
    # expressions on its results see the same values.
    query = """select s, id, share, row_number() over (partition by s order by share, id) rn
               from (select s, id, l / sum(l) over (partition by s) share,
                            count(*) over (partition by s) n from t) where n > 1"""
    fast, hashed = hash_windows(spark, query)
    assert hashed, fast.plan
    assert_same_as_spark(spark, query)


def test_frames_spelled_out_and_several_windows(spark):
    query = """select id, sum(i) over (partition by s rows between unbounded preceding
                                       and unbounded following) a,
                      max(i) over (partition by s range between unbounded preceding
                                   and unbounded following) b,
                      count(*) over (partition by bin) c, max(l) over (partition by p, g) e
               from t"""
    fast, hashed = hash_windows(spark, query)
    assert len(hashed) == 3, fast.plan
    assert_same_as_spark(spark, query)


SORTED = "sorted below it, not per key by hash: "


def sorted_note(fast):
    """The report's note on why the (one) FastWindow of the query is sorted below it."""
    notes = [r.note for r in fast.reports if r.operator == "FastWindow"]
    assert len(notes) == 1, fast.reports
    return notes[0] or ""


@GENERATED_ONLY
@pytest.mark.parametrize("aggregate", ORDER_DEPENDENT)
def test_order_dependent_aggregates_stay_on_the_sorted_operator(spark, aggregate):
    query = whole([aggregate, "count(*)"])
    fast, hashed = hash_windows(spark, query)
    assert not hashed and "Sort " in fast.plan, fast.plan
    note = sorted_note(fast)
    assert note.startswith(SORTED) and "depends on the order of the group's rows" in note, note
    assert "count(1)" not in note, note       # only the obstacle is named
    assert_same_as_spark(spark, query)


@pytest.mark.parametrize("exact", [False, True])
def test_floating_aggregates_per_key_unless_exact_floats(spark, exact):
    """By hash, each key's rows are added in the order they arrive, which may round differently
    from the order Spark's sort leaves them in (within float rounding: Spark's own order is its
    shuffle's); with spark.fastwindow.exactFloats they stay on the sorted operator, bit for bit."""
    scales = [f"sum(abs({X}))", f"sum({X} * {X})"]
    query = whole(scales + list(ROUNDED))
    with session_confs(spark, {"spark.fastwindow.exactFloats": str(exact).lower()}):
        fast, hashed = hash_windows(spark, query)
        if exact:
            assert not hashed and "Sort " in fast.plan, fast.plan
            note = sorted_note(fast)
            assert note.startswith(SORTED) and "exactFloats=true" in note, note
            assert_same_as_spark(spark, query)
        else:
            assert hashed and "Sort " not in fast.plan, fast.plan
            tolerances = {f"a{k}": scale for k, scale in enumerate(["a0", "a1"] +
                                                                   list(ROUNDED.values()))}
            assert_same_as_spark(spark, query, tolerances=tolerances)


@pytest.mark.parametrize("query,why", [
    # Not per key without order: these stay on FastWindow over sorted input, and the report says
    # why where a sort could have been avoided (with ORDER BY it is needed, without PARTITION BY
    # there is none).
    ("select id, sum(i) over (partition by s order by id) a from t", None),
    ("select id, count(*) over () a from t", None),
    # fastwindow folds a DISTINCT aggregate over the set of the frame's values.
    ("select id, sum(distinct i) over (partition by s) a from t",
     "collect_set(t.i): an imperative aggregate"),
    ("select id, max(s) over (partition by bin) a from t",
     "max(t.s): its buffer has fields of variable width"),
    ("select id, collect_list(i) over (partition by s) a from t",
     "collect_list(t.i): an imperative aggregate"),
    ("select id, count(*) over (partition by arr) a from t",
     "the key t.arr (array<int>) is not grouped by its bytes"),
    ("select id, sum(i) over (partition by s rows between 1 preceding and 1 following) a "
     "from t", "sum(t.i): its frame is not the whole partition"),
])
@GENERATED_ONLY
def test_other_windows_stay_on_the_sorted_operator(spark, query, why):
    fast, hashed = hash_windows(spark, query)
    assert not hashed, (why, fast.plan)
    note = sorted_note(fast)
    assert (SORTED + why in note) if why else SORTED not in note, note
    assert_same_as_spark(spark, query)


def test_overflow_under_ansi_matches_spark(spark):
    # The per-key sums add the rows in Spark's order, so they overflow (or wrap) where Spark's do.
    query = ("select id, sum(x) over (partition by s) total from (select s, id, case when id % 2 "
             "= 0 then 4611686018427387904 else -1 end x from t)")
    assert_same_as_spark(spark, query, ansi=False)
    spark.conf.set("spark.sql.ansi.enabled", "true")
    try:
        outcomes = []
        for on in (True, False):
            try:
                run(spark, query, fastwindow_on=on)
                outcomes.append("no error")
            except Exception as exc:  # noqa: BLE001 - the error is what is compared
                outcomes.append("overflow" if "ARITHMETIC_OVERFLOW" in str(exc) else str(exc))
        assert outcomes == ["overflow", "overflow"], outcomes
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")


@pytest.mark.parametrize("ansi", [False, True])
def test_big_sums_that_fit_per_group_stay_unsorted(spark, ansi):
    # Each group has one value of 2^62: the task's groups together pass the long range, so the
    # guard tells them apart (a replay of the buffered rows), and none of them can overflow.
    query = ("select k, x, sum(x) over (partition by k) total, count(*) over (partition by k) n "
             "from (select id % 100 as k, case when id < 100 then 4611686018427387904 else id end "
             "as x from range(0, 3000))")
    assert_same_as_spark(spark, query, ansi=ansi)
    fast, hashed = hash_windows(spark, query)
    assert hashed and hashed[0].metrics.get("numSortedTasks", 0) == 0, hashed


def test_empty_input(spark):
    assert assert_same_as_spark(spark, whole(["sum(i)", "count(*)"], table="empty_t"),
                                empty_input=True) == []


@pytest.fixture(scope="module")
def skewed(spark_session):
    """One hot key (20k rows), 2000 small keys, a NULL key, and 30k keys of one row each (strings:
    keys Spark sorts by comparisons)."""
    spark_session.range(0, 60000, 1, 3).selectExpr(
        "case when id < 20000 then 0 when id < 28000 then 1 + id % 2000 "
        "when id < 30000 then null else id end as k",
        "id", "cast(pmod(xxhash64(id), 1000) as int) as v",
        "pmod(xxhash64(id, 1), 100000) / 7.0bd as x",
    ).selectExpr("cast(k as string) k", "id", "v", "x").createOrReplaceTempView("skewed_whole")
    yield "skewed_whole"


@GENERATED_ONLY
@pytest.mark.parametrize("aqe", ["true", "false"])
def test_skewed_hot_and_distinct_keys(spark, skewed, aqe):
    query = whole(["sum(v)", "min(x)", "count(*)", "min(id)", "max(id)", "max(v)"],
                  partition="k", table=skewed,
                  columns="k, id, try_divide(v, sum(v) over (partition by k)) share")
    with session_confs(spark, {"spark.sql.adaptive.enabled": aqe}):
        fast, hashed = hash_windows(spark, query)
        assert hashed and "Sort " not in fast.plan, fast.plan
        assert_same_as_spark(spark, query)


@GENERATED_ONLY
def test_memory_refused_falls_back_to_sorting(spark, skewed):
    # A budget of a few groups: each task gives its rows to Spark's sorter and Spark's own
    # window evaluation; the results are the same.
    query = whole(["sum(v)", "count(*)", "max(id)"], partition="k", table=skewed)
    with session_confs(spark, {"spark.fastwindow.hashWindow.maxMemoryBytes": "2k"}):
        assert_same_as_spark(spark, query)
        fast, hashed = hash_windows(spark, query)
        assert hashed and hashed[0].metrics.get("numSortedTasks", 0) > 0, hashed


@GENERATED_ONLY
def test_hash_window_can_be_switched_off(spark):
    query = whole(["sum(i)", "count(*)"])
    with session_confs(spark, {"spark.fastwindow.hashWindow.enabled": "false"}):
        fast, hashed = hash_windows(spark, query)
        assert not hashed and any(r.operator == "FastWindow" for r in fast.reports), fast.plan
        assert sorted_note(fast) == SORTED + "spark.fastwindow.hashWindow.enabled is false"
        assert_same_as_spark(spark, query)


@GENERATED_ONLY
def test_no_sort_in_the_plan_and_spark_sorts(spark, skewed):
    query = whole(["sum(v)", "count(*)"], partition="k", table=skewed)
    fast, hashed = hash_windows(spark, query)
    assert "by hash, no sort" in fast.plan and "Sort " not in fast.plan, fast.plan
    assert hashed[0].metrics.get("numWindowPartitions", 0) == 32002, hashed[0].metrics
    vanilla = run(spark, query, fastwindow_on=False)
    assert "Sort " in vanilla.plan
    assert_rows_equal(fast.rows, vanilla.rows)


@GENERATED_ONLY
def test_rows_spill_at_sparks_thresholds_and_a_failing_task_releases_memory(spark):
    # The task's rows wait in Spark's window buffer, which spills at WindowExec's thresholds; an
    # ANSI overflow after it spilled leaves no execution memory reserved.
    query = ("select id, sum(case when id in ({big}) then 9223372036854775807 else id end) "
             "over (partition by cast(id % 2 as string)) s from range(0, 20000)")
    confs = {"spark.sql.windowExec.buffer.in.memory.threshold": "100",
             "spark.sql.windowExec.buffer.spill.threshold": "300"}
    for k, v in confs.items():
        spark.conf.set(k, v)
    try:
        assert_same_as_spark(spark, query.format(big="-1"))
        fast, hashed = hash_windows(spark, query.format(big="-1"))
        assert hashed and hashed[0].metrics.get("spillSize", 0) > 0, hashed
        spark.conf.set("spark.sql.ansi.enabled", "true")
        with pytest.raises(Exception, match="ARITHMETIC_OVERFLOW"):
            spark.sql(query.format(big="9000, 9002")).collect()
        jvm = spark.sparkContext._jvm
        assert jvm.org.apache.spark.sql.fastwindow.TaskMemory.executionMemoryUsed() == 0
    finally:
        for k in [*confs, "spark.sql.ansi.enabled"]:
            spark.conf.unset(k)
