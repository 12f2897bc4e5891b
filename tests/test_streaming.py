"""Streaming evaluation against Spark.

Functions that need only a bounded number of neighbouring rows (row_number, rank, dense_rank,
lead/lag, running frames, moving ROWS frames) are evaluated while rows stream through: a row is
returned as soon as its results are known, and the evaluator drops rows no later result reads.
Partitions here are large (10k rows, and 30k without PARTITION BY) so rows are dropped many
times mid-partition. Each group of functions runs streaming, buffered
(``spark.fastwindow.streaming.enabled`` off) and with a tiny
``spark.fastwindow.streaming.maxPendingRows`` (waiting rows overflow into the spillable buffer
mid-partition), on the generated evaluator, and must match Spark every time. The
operator's metrics must show which way each partition went. The last test streams the ranges of a
window spread over tasks, where functions one task must buffer stream.
"""

from __future__ import annotations

import pytest

import fastwindow
from helpers import assert_same_as_spark, run, session_confs
from query_shapes import in_turns
from test_across_tasks import ACROSS_TASKS, _spread

#: Runs on the generated evaluator only (tests/conftest.py): the interpreted twin adds nothing.
pytestmark = pytest.mark.generated_only(
    "the subject is the operator's streaming and buffering, the same Scala on both evaluators; "
    "the twin's ops run every streamable function in test_aggregates, test_ranking and "
    "test_offset.")

STREAMING = "spark.fastwindow.streaming.enabled"
MAX_PENDING = "spark.fastwindow.streaming.maxPendingRows"
SPLIT_MIXED = "spark.fastwindow.streaming.splitMixed"
HASH_WINDOW = "spark.fastwindow.hashWindow.enabled"
ACROSS_TASKS = "spark.fastwindow.acrossTasks.enabled"

# (name, settings): how the operator is allowed to hold rows.
MODES = [
    ("streaming", {}),
    ("buffered", {STREAMING: "false"}),
    ("overflowing", {MAX_PENDING: "3"}),
]

# Each list only holds streamable functions, so the whole operator streams.
STREAMABLE = {
    "ranking": [
        "row_number() over (partition by p order by o)",
        "rank() over (partition by p order by k)",
        "dense_rank() over (partition by p order by k desc)",
    ],
    "offsets": [
        "lag(x) over (partition by p order by o)",
        "lag(v, 1500, -1) over (partition by p order by o)",   # history beyond a discard batch
        "lead(x, 2) over (partition by p order by o)",
        "lead(v, 0) over (partition by p order by o)",
        "lag(s, 3, 'none') over (partition by p order by o)",
    ],
    "running": [
        "sum(v) over (partition by p order by o rows between unbounded preceding and current row)",
        "count(x) over (partition by p order by k)",             # RANGE over ties: waits for peers
        "max(s) over (partition by p order by k)",
        "sum(d) over (partition by p order by o rows between unbounded preceding and 2 following)",
    ],
    "moving": [
        "avg(x) over (partition by p order by o rows between 99 preceding and current row)",
        "sum(v) over (partition by p order by o rows between 5 preceding and 3 following)",
        # Beyond a discard batch (1,024 rows), and not much more: Spark's cost is rows x width.
        "min(x) over (partition by p order by o rows between 1100 preceding and 1 preceding)",
        "max(s) over (partition by p order by o rows between 2 following and 10 following)",
        "sum(d) over (partition by p order by o rows between 10 preceding and 10 following)",
        # The scale of c0's tolerance: the mean |x| over the same frame.
        "avg(abs(x)) over (partition by p order by o rows between 99 preceding and current row)",
    ],
}

# Float sums combine partial sums in another order than Spark (see test_sliding_frames.py).
TOLERANCES = {"moving": {"c0": "c5", "c5": "c5"}}


def _big_views(spark) -> None:
    spark.sql("""
        create or replace temporary view stream_big as
        select cast(id % 3 as int) as p,
               id as o,
               cast(id div 7 as int) as k,
               case when id % 11 = 0 then null else cast((id * 7919) % 1000 as double) / 7 end as x,
               case when id % 13 = 0 then null else (id * 104729) % 100000 - 50000 end as v,
               cast(id % 17 as decimal(10, 2)) as d,
               case when id % 5 = 0 then null else concat('s', cast(id % 97 as string)) end as s
        from range(0, 30000)
    """)


@pytest.fixture
def big(spark):
    _big_views(spark)
    yield spark
    for key in (STREAMING, MAX_PENDING, SPLIT_MIXED, HASH_WINDOW, ACROSS_TASKS):
        spark.conf.unset(key)


def _query(functions, partitioned=True):
    cols = ",\n".join(f"{f} as c{k}" for k, f in enumerate(functions))
    if not partitioned:
        cols = cols.replace("partition by p ", "")
    return f"select p, o, {cols} from stream_big"


# Each group in each mode over 10k-row partitions or the 30k rows without PARTITION BY in turn
# (24 -> 12 queries of 30k rows): each group and each mode still meets both shapes.
STREAMABLE_CASES = [(group, mode, settings, partitioned)
                    for (group, (mode, settings)), (partitioned,) in in_turns(
                        [(g, m) for g in sorted(STREAMABLE) for m in MODES], [True, False])]


@pytest.mark.parametrize("group,mode,settings,partitioned", STREAMABLE_CASES,
                         ids=[f"{g}-{m}-{'partitioned' if p else 'whole_input'}"
                              for g, m, _, p in STREAMABLE_CASES])
def test_streamable_functions_match_spark(big, group, mode, settings, partitioned):
    for key, value in settings.items():
        big.conf.set(key, value)
    assert_same_as_spark(big, _query(STREAMABLE[group], partitioned), key="o",
                         tolerances=TOLERANCES.get(group))


def _metrics(spark, sql):
    df = spark.sql(sql)
    df.collect()  # runs df's own physical plan, whose metrics explain() reads
    reports = [r for r in fastwindow.explain(df) if r.fastwindow]
    assert reports, fastwindow.explain_string(df)
    return reports[0].metrics


def test_metrics_show_streamed_partitions(big):
    metrics = _metrics(big, _query(STREAMABLE["running"]))
    assert metrics.get("numStreamedPartitions") == 3, metrics
    assert metrics.get("numBufferedPartitions", 0) == 0, metrics
    assert metrics.get("numOutputRows") == 30000, metrics
    assert metrics.get("peakMemory", 0) > 0, metrics


def test_metrics_count_a_last_partition_returned_before_the_input_ends(big):
    """row_number returns every row as it arrives, so the input's end comes after the last row."""
    metrics = _metrics(big, "select o, row_number() over (order by o) r from stream_big")
    assert metrics.get("numStreamedPartitions") == 1, metrics
    assert metrics.get("numWindowPartitions") == 1, metrics


def test_metrics_show_buffered_partitions_for_whole_partition_frames(big):
    big.conf.set(HASH_WINDOW, "false")  # FastWindow's, not the hash window's (no partitions)
    metrics = _metrics(big, "select p, o, sum(v) over (partition by p) s from stream_big")
    assert metrics.get("numBufferedPartitions") == 3, metrics
    assert metrics.get("numStreamedPartitions", 0) == 0, metrics


def test_streaming_memory_does_not_grow_with_the_partition(big):
    """Peak column memory of a streamed 30k-row partition stays near that of a 3k-row one (in
    one task: spread over ranges, the window would run as two operators, see
    test_across_tasks.py)."""
    big.conf.set(ACROSS_TASKS, "false")
    sql = ("select o, row_number() over (order by o) r, "
           "sum(v) over (order by o rows between 100 preceding and current row) m "
           "from stream_big where o < {n}")
    small = _metrics(big, sql.format(n=3000))["peakMemory"]
    large = _metrics(big, sql.format(n=30000))["peakMemory"]
    assert large < 2 * small, (small, large)
    big.conf.set(STREAMING, "false")
    buffered = _metrics(big, sql.format(n=30000))["peakMemory"]
    assert buffered > 5 * large, (large, buffered)


def test_overflow_goes_to_the_buffer_and_matches_spark(big):
    """Groups of 10k ORDER BY ties under a RANGE frame: more waiting rows than allowed."""
    big.conf.set(MAX_PENDING, "100")
    sql = "select o, sum(v) over (order by p) s, count(x) over (order by p) c from stream_big"
    assert_same_as_spark(big, sql, key="o")
    metrics = _metrics(big, sql)
    assert metrics.get("numBufferedPartitions") == 1, metrics


def test_buffered_plan_that_reads_no_rows_drops_its_columns(big):
    """Whole-partition aggregates, ntile and row_number read no buffered row when writing, so the
    partition's rows are buffered but its columns are dropped as rows arrive."""
    sql = ("select p, o, sum(v) over (partition by p) s, max(s) over (partition by p) m, "
           "ntile(7) over (partition by p order by o) t, "
           "row_number() over (partition by p order by o) r from stream_big")
    assert_same_as_spark(big, sql, key="o")
    metrics = _metrics(big, sql)
    assert metrics.get("numBufferedPartitions") == 3, metrics
    big.conf.set(STREAMING, "false")
    with_lag = _metrics(big, sql.replace("from stream_big", ", lag(v) over (partition by p "
                                          "order by o) l from stream_big"))
    assert metrics["peakMemory"] * 4 < with_lag["peakMemory"], (metrics, with_lag)


# One window spec (so one logical Window) mixing streamed and buffering functions, in an order
# that interleaves them (the split needs a projection) and one that does not.
MIXED = {
    "interleaved": ["lag(v, 2) over (partition by p order by o)",
                    "percent_rank() over (partition by p order by o)",
                    "avg(v) over (partition by p order by o rows between 99 preceding and current row)",
                    # A whole frame, not a shrinking one: Spark's shrinking frame is quadratic.
                    "sum(v) over (partition by p order by o rows between unbounded preceding and "
                    "unbounded following)"],
    "grouped": ["row_number() over (partition by p order by o)",
                "max(s) over (partition by p order by o rows between 3 preceding and 1 following)",
                "ntile(4) over (partition by p order by o)",
                "min(v) over (partition by p order by o rows between unbounded preceding and "
                "unbounded following)"],
}


@pytest.mark.parametrize("name", sorted(MIXED))
def test_split_mixed_window_runs_streamed_functions_apart(big, name):
    """With splitMixed, the streamed functions run in their own (streaming) operator and the
    buffering operator holds only its own functions' columns; results are Spark's either way."""
    sql = _query(MIXED[name])
    single = _metrics(big, sql)
    assert single.get("numBufferedPartitions") == 3, single
    big.conf.set(SPLIT_MIXED, "true")
    assert_same_as_spark(big, sql, key="o")
    df = big.sql(sql)
    df.collect()
    reports = [r for r in fastwindow.explain(df) if r.fastwindow]
    assert len(reports) == 2, fastwindow.explain_string(df)
    streamed, buffered = sorted(reports, key=lambda r: r.metrics.get("numBufferedPartitions", 0))
    assert streamed.metrics.get("numStreamedPartitions") == 3, streamed.metrics
    assert buffered.metrics.get("numBufferedPartitions") == 3, buffered.metrics
    assert df.columns == ["p", "o", "c0", "c1", "c2", "c3"]
    assert buffered.metrics["peakMemory"] < single["peakMemory"], (buffered.metrics, single)


@pytest.mark.parametrize("streaming", ["true", "false"])
def test_window_size_and_whole_frames_stream_in_a_range(spark, streaming):
    """One task buffers its partition for percent_rank, cume_dist, ntile and whole frames (they
    need its size or every row); a range's seed gives them, so its rows stream (cume_dist waiting
    for its peers) and are dropped as they are written: 3 ranges of 4,000 rows, ties of 3."""
    query = """select id, percent_rank() over w pr, cume_dist() over w cd, ntile(9) over w nt,
                      rank() over w rk, sum(v) over (order by k rows between unbounded preceding
                      and unbounded following) s
               from (select id, id div 3 as k, (id * 104729) % 1000 - 500 as v
                     from range(0, 12000, 1, 3)) window w as (order by k)"""
    streams = {STREAMING: streaming}
    with session_confs(spark, streams):
        _spread(spark, query, 3)
    with session_confs(spark, {**streams, ACROSS_TASKS: "true", "spark.sql.shuffle.partitions": "3",
                               "spark.sql.adaptive.coalescePartitions.enabled": "false"}):
        fast = run(spark, query, fastwindow_on=True)
    for report in fast.reports:
        metrics = dict(report.metrics)
        streamed = metrics.get("numStreamedPartitions", 0)
        assert metrics.get("numWindowPartitions") == 3, report
        assert streamed == (3 if streaming == "true" else 0), report
