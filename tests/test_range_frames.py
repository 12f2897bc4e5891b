"""RANGE frames with value offsets, CURRENT ROW and unbounded edges, against Spark.

Every order key type Spark accepts for value offsets (but intervals) in both directions and both
null orderings, with nulls, ties, NaN/+-inf and values at the type's limits; numeric, date-day,
day-time and year-month interval offsets, also across DST changes. Integral, decimal, string,
date and timestamp results are exactly Spark's; float sums get the tolerance of
test_sliding_frames (1e-12 times the frame's sum of |x|), variances that of test_more_aggregates.
Every test runs on the generated and the interpreted evaluator.
"""

from __future__ import annotations

import pytest

from helpers import (DATE_RANGE_DAY_INTERVAL, assert_falls_back, assert_float_sums_close,
                     assert_runs_agree, assert_same_as_spark, assert_same_error,
                     assert_same_outcome_with_ansi, needs_window_filter, run, session_confs,
                     spark_run_with_ansi)
from query_shapes import in_turns
from test_more_aggregates import assert_variances_close, variance_query

NUMERIC_FRAMES = [
    "range between 3 preceding and 3 following",
    "range between 10 preceding and current row",
    "range between current row and 5 following",
    "range between 5 preceding and 1 preceding",      # before the row: empty for isolated keys
    "range between 1 following and 8 following",      # after the row
    "range between unbounded preceding and 2 following",
    "range between 4 preceding and unbounded following",
    "range between 2 following and unbounded following",
    "range between unbounded preceding and 3 preceding",
    "range between 0 preceding and 0 following",       # the peers, by value
]
PEER_FRAMES = [
    "range between current row and unbounded following",   # shrinking by peer groups
    "range between current row and current row",
]

# Order key -> frames whose offsets suit its type (Spark coerces numeric offsets to the key type).
KEY_FRAMES = {
    "by": NUMERIC_FRAMES,
    "sh": NUMERIC_FRAMES,
    "i": NUMERIC_FRAMES,           # holds Int.MinValue and Int.MaxValue: edges wrap without ANSI
    "l": ["range between 100000 preceding and 50000 following",
          "range between current row and 300000 following",
          "range between 1 following and unbounded following"],
    "f": ["range between 2.5 preceding and 1.25 following", "range between 1 following and 3 following"],
    "d": ["range between 2.5 preceding and 1.5 following",   # NaN, +-inf, +-1e308, -0.0
          "range between unbounded preceding and 10 preceding",
          "range between 1e308 preceding and current row"],    # edges overflow to +-inf
    "dec": ["range between 10.5 preceding and 2.25 following", "range between current row and 5 following"],
    "bigdec": ["range between 1000.000001 preceding and 0.5 following"],
    "dt": ["range between 10 preceding and 2 following",      # date +- days
           "range between interval 30 days preceding and current row",
           "range between interval 1 month preceding and interval 1 month following"],
    "ts": ["range between interval 12 hours preceding and interval 1 hour following",
           "range between interval '1 02:00:00' day to second preceding and current row",
           "range between current row and interval 1 month following"],
    "ntz": ["range between interval '3 00:00' day to minute preceding and "
            "interval '0 00:30' day to minute preceding",
            "range between interval 1 year preceding and current row"],
}
DATE_MONTHS = KEY_FRAMES["dt"][2]
if not DATE_RANGE_DAY_INTERVAL:
    KEY_FRAMES["dt"].remove("range between interval 30 days preceding and current row")
ORDERS = ["asc nulls first", "asc nulls last", "desc nulls first", "desc nulls last"]
# Every direction and null ordering for the keys with edge values; two for the others.
KEY_ORDERS = {"i": ORDERS, "d": ORDERS}


EXACT = [
    "count(*)", "count(d)", "sum(i)", "sum(l)", "avg(l)", "min(d)", "max(d)", "min(s)", "max(s)",
    "sum(dec)", "avg(dec)", "min(bigdec)", "min(dt)", "max(ts)", "max(bo)", "min(bin)",
    "first(i)", "last(s, true)", "min_by(id, g)", "max_by(s, id)",
]


def select(aggregates, frame, key, order="asc nulls first", table="t", partition="partition by p"):
    w = f"over ({partition} order by {key} {order} {frame})"
    cols = ",\n".join(f"{a} {w} c{k}" for k, a in enumerate(aggregates))
    return f"select p, id, {cols} from {table}"


# Each frame of a key with one of its orders in turn: an order's edges do not depend on the
# frame's kind, and every order with every frame ran 2.4x as many queries (124 -> 51).
CASES = [(key, frame, orders) for key, frames in KEY_FRAMES.items()
         for frame, orders in in_turns(frames, KEY_ORDERS.get(key, [ORDERS[0], ORDERS[3]]))]


@pytest.mark.parametrize("key,frame,orders", CASES, ids=[f"{k}:{f[14:]}" for k, f, _ in CASES])
def test_exact_aggregates(spark, key, frame, orders):
    for order in orders:
        assert_same_as_spark(spark, select(EXACT, frame, key, order), ansi=False)


@pytest.mark.parametrize("frame", PEER_FRAMES)
@pytest.mark.parametrize("order", ["g", "g desc, s nulls last", "s, bin desc", "dt desc, ts"])
def test_current_row_edges_with_any_order_keys(spark, frame, order):
    """Without value offsets a RANGE frame may have several ORDER BY keys of any orderable type."""
    w = f"over (partition by p order by {order} {frame})"
    query = f"select p, id, count(*) {w} c, sum(l) {w} s, min(s) {w} m, last(i, true) {w} x from t"
    assert_same_as_spark(spark, query, ansi=False)


@pytest.mark.parametrize("key,frame", [("i", NUMERIC_FRAMES[0]), ("i", NUMERIC_FRAMES[2]),
                                       ("i", NUMERIC_FRAMES[5]), ("i", NUMERIC_FRAMES[6]),
                                       ("dt", DATE_MONTHS), ("ts", KEY_FRAMES["ts"][2])])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_edges_near_type_limits_with_ansi(spark, key, frame, order):
    """Keys at Int.MinValue/MaxValue: Spark's edge addition overflows under ANSI, but only for the
    edges it computes. fastwindow computes the same edges at the same points: same error or same
    values."""
    assert_same_outcome_with_ansi(spark, select(["count(*)", "sum(l)"], frame, key, order))


@pytest.mark.parametrize("ansi", [True, False])
@pytest.mark.parametrize("key_type", ["timestamp", "timestamp_ntz"])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_timestamp_hour_edges_near_limits(spark, ansi, key_type, order):
    """Offsets under a day on timestamps at the limits of a bigint of microseconds: an edge past
    them fails with Spark's overflow, in both ANSI modes, wherever Spark computes one."""
    frame = ("range between interval '0 02:00' day to minute preceding and "
             "interval '0 00:30' day to minute following")
    query = f"""select id, count(*) over (partition by p order by ts {order} {frame}) c,
                       min(id) over (partition by p order by ts {order} {frame}) m
                from (select id, id % 2 p, cast(timestamp_micros(
                        if(id < 8, 9223372036854775807 - id * 900000000,
                           -9223372036854775807 + (id - 8) * 900000000)) as {key_type}) ts
                      from range(16))"""
    expected = spark_run_with_ansi(spark, query, ansi)
    if expected is None:
        assert_same_error(spark, query, ansi=ansi)
    else:
        with session_confs(spark, {"spark.sql.ansi.enabled": str(ansi).lower()}):
            assert_runs_agree(run(spark, query, fastwindow_on=True), expected)


def test_bigint_edges_near_limits(spark):
    for frame in ["range between 5 preceding and 20 following",
                  "range between current row and 100 following",
                  "range between 9 preceding and unbounded following"]:
        for order in ["asc", "desc"]:
            query = f"select id, count(*) over (partition by p order by v {order} {frame}) c, " \
                    f"min(id) over (partition by p order by v {order} {frame}) m from big"
            assert_same_as_spark(spark, query, ansi=False)
            assert_same_outcome_with_ansi(spark, query)


def test_last_row_at_max_key_never_computes_its_edge(spark):
    """Spark computes no upper edge once every row is in the frame; the last row's key + 1 would
    overflow. With ANSI on, both succeed."""
    query = """select k, count(*) over (order by k range between current row and 1 following) c
               from values (2147483646), (2147483647) as v(k)"""
    assert_same_as_spark(spark, query, ansi=True)


@pytest.mark.parametrize("x", ["d", "f"])
@pytest.mark.parametrize("key,frame", [("sh", NUMERIC_FRAMES[0]), ("d", KEY_FRAMES["d"][0]),
                                       ("ts", KEY_FRAMES["ts"][0]), ("sh", NUMERIC_FRAMES[6])])
def test_float_sums_within_tolerance(spark, x, key, frame):
    assert_float_sums_close(spark, x, f"partition by p order by {key} {frame}")


@pytest.mark.parametrize("frame", [NUMERIC_FRAMES[0], NUMERIC_FRAMES[6]])
@pytest.mark.parametrize("x", ["d", "dec", "l"])
def test_variance_within_tolerance(spark, x, frame):
    assert_variances_close(spark, variance_query(x, frame, order="sh"))


@pytest.mark.parametrize("ansi", [True, False])
def test_decimal_and_integral_sums_exact(spark, ansi):
    aggregates = ["sum(dec)", "avg(dec)", "sum(bigdec)", "avg(bigdec)", "sum(l)", "sum(i)"]
    for frame in (NUMERIC_FRAMES[0], NUMERIC_FRAMES[6], PEER_FRAMES[0]):
        assert_same_as_spark(spark, select(aggregates, frame, "sh"), ansi=ansi)


@needs_window_filter
@pytest.mark.parametrize("frame", [NUMERIC_FRAMES[0], NUMERIC_FRAMES[7]])
def test_filter(spark, frame):
    aggregates = ["count(*) filter (where bo)", "sum(i) filter (where d > 0)",
                  "min(s) filter (where not bo)", "last(i, true) filter (where d is not null)"]
    assert_same_as_spark(spark, select(aggregates, frame, "i"), ansi=False)


def test_time_offsets_across_dst(spark):
    """Day and month offsets in a zone with DST: Spark adds them in the session time zone."""
    spark.conf.set("spark.sql.session.timeZone", "America/New_York")
    try:
        query = """
            select id, ts,
              count(*) over (order by ts range between interval 1 day preceding and current row) a,
              count(*) over (order by ts range between interval '23' hour preceding and current row) b,
              count(*) over (order by ts range between current row and interval 1 month following) c,
              count(*) over (order by ts desc range between interval 1 day preceding and current row) d
            from (select id, timestamp'2024-03-09 01:30:00' + make_dt_interval(0, id, 0, 0) ts
                  from range(0, 60))"""
        assert_same_as_spark(spark, query, ansi=False)
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")


def test_long_partitions_slide_exactly(spark):
    # 3 partitions of 2000 rows with duplicate keys: the pointers and stacks refill many times.
    query = """
        select p, id, sum(v) over w s, min(v) over w mn, max(v) over w mx, count(v) over w c
        from (select id % 3 as p, id, id div 7 as k,
                     case when id % 17 = 0 then null else (id * 7919) % 1000 - 500 end v
              from range(6000))
        window w as (partition by p order by k range between 20 preceding and 5 following)"""
    assert_same_as_spark(spark, query, ansi=False)


def test_tiny_partitions_and_empty_input(spark):
    frame = NUMERIC_FRAMES[0]
    assert_same_as_spark(spark, select(["sum(i)", "min(d)", "count(*)"], frame, "i", table="tiny"),
                         ansi=False)
    assert_same_as_spark(spark, select(["sum(l)", "min(s)"], frame, "i", table="empty_t"),
                         ansi=False, empty_input=True)


def test_no_partition_by(spark):
    assert_same_as_spark(spark, select(["sum(l)", "max(s)"], NUMERIC_FRAMES[0], "sh", partition=""),
                         ansi=False)


@pytest.mark.parametrize("frame", [NUMERIC_FRAMES[0], NUMERIC_FRAMES[3], NUMERIC_FRAMES[6], PEER_FRAMES[0]])
def test_nth_value(spark, frame):
    nth = ["nth_value(i, 1)", "nth_value(i, 2)", "nth_value(d, 3) ignore nulls",
           "nth_value(s, 2) ignore nulls", "nth_value(dec, 1000)"]
    assert_same_as_spark(spark, select(nth, frame, "sh"))


def test_interval_order_key_with_an_offset_of_other_fields(spark):
    """An INTERVAL DAY offset on an INTERVAL DAY TO SECOND key: Spark's analyzer casts it."""
    query = """select id, sum(id) over (order by k range between interval 1 day preceding
                                        and current row) s
               from (select id, make_dt_interval(id div 3) k from range(20))"""
    assert_same_as_spark(spark, query)


#: RANGE offsets on ANSI interval keys: each edge is the key plus the offset, with the interval
#: type's own (exact, overflow-checked) addition, as Spark computes it.
INTERVAL_FRAMES = {
    "make_ym_interval(0, g)": [
        "range between interval '0-1' year to month preceding and current row",
        "range between interval '0-2' year to month preceding and interval '0-1' year to month "
        "following",
        "range between current row and interval '1-0' year to month following"],
    "make_dt_interval(0, g, i, 0)": [
        "range between interval '0 01:00:00' day to second preceding and current row",
        "range between interval '0 00:30:00' day to second following and unbounded following",
        "range between unbounded preceding and interval '0 02:00:00' day to second preceding"],
}
INTERVAL_CASES = [(k, f) for k, frames in INTERVAL_FRAMES.items() for f in frames]


@pytest.mark.parametrize("key,frame", INTERVAL_CASES, ids=[f"{k[:16]}:{f[14:40]}"
                                                          for k, f in INTERVAL_CASES])
@pytest.mark.parametrize("order", ["asc nulls first", "desc nulls last"])
def test_interval_keys(spark, key, frame, order):
    aggregates = EXACT + ["min(make_dt_interval(0, 0, i, 0))", "max(make_ym_interval(0, i))"]
    w = f"over (partition by p order by {key} {order} {frame})"
    # Python reads no year-month intervals: those results are compared as strings.
    cols = ",\n".join(f"cast({a} {w} as string) c{k}" if "ym_interval" in a else f"{a} {w} c{k}"
                       for k, a in enumerate(aggregates))
    assert_same_as_spark(spark, f"select p, id, {cols} from t", ansi=False)
