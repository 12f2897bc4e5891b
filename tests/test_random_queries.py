"""Seeded random differential testing: random data, random supported window queries.

Each query has several window functions, each over its own random window spec (partition keys,
order keys with random directions and null orderings, frames), and must give Spark's answer on
FastWindow. The seed and count are printed on failure and can be set with
FASTWINDOW_RANDOM_SEED / FASTWINDOW_RANDOM_QUERIES to replay or extend a run.
"""

from __future__ import annotations

import datetime as dt
import os
import random
from decimal import Decimal

import pytest
from helpers import (session_confs, OFFSET_IGNORE_NULLS_COLUMN_DEFAULT, SPARK_LINE, WINDOW_FILTER,
                     assert_same_as_spark, assert_same_error, python_rows_view)

SEED = int(os.environ.get("FASTWINDOW_RANDOM_SEED", "20261122"))
QUERIES = int(os.environ.get("FASTWINDOW_RANDOM_QUERIES", "160"))
BATCHES = 8

PARTITION_KEYS = ["pk1", "pk2"]
ORDER_KEYS = ["o_int", "o_dbl", "o_date", "o_str", "x_long", "x_dec", "x_ts", "x_bool", "id"]
NUMERIC_VALUES = ["x_int", "x_long", "x_dbl", "x_dec", "o_int", "o_dbl"]
ORDERABLE_VALUES = NUMERIC_VALUES + ["o_str", "o_date", "x_ts", "x_bool"]
ANY_VALUES = ORDERABLE_VALUES + ["x_arr"]
LITERALS = {"x_int": "-7", "x_long": "0L", "x_dbl": "double('-inf')",
            "x_dec": "cast(-1 as decimal(12,3))", "o_str": "'?'", "o_date": "date'1999-12-31'"}
SCHEMA = ("pk1 int, pk2 string, id bigint, o_int int, o_dbl double, o_date date, o_str string, "
          "x_int int, x_long bigint, x_dbl double, x_dec decimal(12,3), x_ts timestamp, "
          "x_bool boolean, x_arr array<int>")


def random_rows(rng: random.Random, n: int):
    def maybe(v, rate=0.2):
        return None if rng.random() < rate else v
    doubles = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1.5, -2.25]
    rows = []
    for k in range(n):
        rows.append((
            maybe(rng.randint(0, 3), 0.1), maybe(rng.choice(["a", "b", "c"]), 0.1), k,
            maybe(rng.randint(-3, 3)), maybe(rng.choice(doubles)),
            maybe(dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 5))),
            maybe(rng.choice(["", "x", "y", "xy", "Y"])),
            maybe(rng.randint(-2**31, 2**31 - 1) if rng.random() < 0.1 else rng.randint(-9, 9)),
            maybe(rng.randint(-10**12, 10**12)),
            maybe(rng.choice(doubles) if rng.random() < 0.3 else rng.uniform(-1e3, 1e3)),
            maybe(Decimal(rng.randint(-10**6, 10**6)) / 1000),
            maybe(dt.datetime(2024, 3, 31, 1, 0) + dt.timedelta(minutes=rng.randint(0, 200))),
            maybe(rng.random() < 0.5),
            maybe([rng.randint(0, 2)] * rng.randint(0, 2)),
        ))
    return rows


#: Whether random windows end their ORDER BY with the unique ``id`` and drop PARTITION BY
#: (``on``; set by test_random_spread_windows) or have one or two keys (``keys``; set by
#: test_random_skewed_key_windows).
SPREAD = {"on": False, "keys": False}


def random_spec(rng: random.Random, need_order: bool) -> str:
    parts = rng.sample(PARTITION_KEYS, rng.randint(0, 2))
    n_order = rng.randint(1 if need_order else 0, 3)
    order = [f"{k} {rng.choice(['asc', 'desc'])} nulls {rng.choice(['first', 'last'])}"
             for k in rng.sample(ORDER_KEYS, n_order)]
    if SPREAD["on"]:
        parts = rng.sample(PARTITION_KEYS, rng.randint(1, 2)) if SPREAD["keys"] else []
        order += ["id desc"] if order else []
    spec = ""
    if parts:
        spec += "partition by " + ", ".join(parts)
    if order:
        spec += " order by " + ", ".join(order)
    return spec.strip()


EXACT_SUM_VALUES = ["x_int", "x_long", "o_int", "x_dec"]
#: ANSI intervals that sum and avg add (with an overflow check in every mode), on every frame.
INTERVAL_SUMS = ["make_dt_interval(0, 0, 0, x_int)", "make_dt_interval(o_int, 0, 0, x_dec)",
                 "make_ym_interval(0, x_int)"]


def random_rows_frame(rng: random.Random) -> str:
    """A random ROWS frame with constant or unbounded bounds, lower <= upper."""
    def bound(offset):
        if offset is None:
            return None
        return "current row" if offset == 0 else (
            f"{-offset} preceding" if offset < 0 else f"{offset} following")
    lo = None if rng.random() < 0.2 else rng.randint(-6, 3)
    hi = None if rng.random() < 0.2 else rng.randint(lo if lo is not None else -6, 6)
    lower = bound(lo) or "unbounded preceding"
    upper = bound(hi) or "unbounded following"
    return f" rows between {lower} and {upper}"


# RANGE offset keys (one key per frame): how an offset of k steps is written for each.
RANGE_KEYS = {
    "o_int": lambda k: str(k), "x_long": lambda k: str(k * 10**11), "o_dbl": lambda k: f"{k * 0.75}",
    "x_dec": lambda k: f"{k * 250.5}", "o_date": lambda k: str(k),
    "x_ts": lambda k: f"interval {k * 20} minutes",
}


def random_range_frame(rng: random.Random) -> str:
    """A random RANGE frame (not whole or running): value offsets on one random key, CURRENT ROW
    or unbounded edges, lower <= upper; without offsets, over any random ORDER BY."""
    def edge():
        r = rng.random()
        return None if r < 0.2 else 0 if r < 0.4 else rng.randint(-3, 3)
    lo, hi = edge(), edge()
    if lo is not None and hi is not None and lo > hi:
        lo, hi = hi, lo
    if (lo, hi) in ((None, None), (None, 0)):
        lo = 0
    key = rng.choice(sorted(RANGE_KEYS))

    def sql(offset, unbounded):
        if offset is None:
            return unbounded
        if offset == 0 and rng.random() < 0.7:
            return "current row"
        return f"{RANGE_KEYS[key](abs(offset))} {'preceding' if offset < 0 else 'following'}"
    frame = f" range between {sql(lo, 'unbounded preceding')} and {sql(hi, 'unbounded following')}"
    if "preceding" in frame.replace("unbounded preceding", "") or \
            "following" in frame.replace("unbounded following", ""):
        parts = rng.sample(PARTITION_KEYS, rng.randint(0, 2))
        if SPREAD["on"]:  # RANGE frames reach rows of the ranges around a range by value
            parts = rng.sample(PARTITION_KEYS, rng.randint(1, 2)) if SPREAD["keys"] else []
        partition = f"partition by {', '.join(parts)} " if parts else ""
        order = f"order by {key} {rng.choice(['asc', 'desc'])} nulls {rng.choice(['first', 'last'])}"
        return f"{partition}{order}{frame}"
    return random_spec(rng, need_order=True) + frame


def random_function(rng: random.Random) -> str:
    kind = rng.choice(["ranking", "offset", "aggregate", "aggregate"])
    if kind == "ranking":
        fn = rng.choice(["row_number()", "rank()", "dense_rank()", "percent_rank()",
                         "cume_dist()", f"ntile({rng.randint(1, 7)})"])
        return f"{fn} over ({random_spec(rng, need_order=True)})"
    if kind == "offset":
        x = rng.choice(ANY_VALUES)
        offset = rng.randint(-3, 5)
        name = rng.choice(["lead", "lag"])
        default = rng.choice(["", f", {x}", f", {LITERALS[x]}" if x in LITERALS else ""])
        args = f"{x}, {offset}{default}" if default or rng.random() < 0.7 else x
        nulls = " ignore nulls" if rng.random() < 0.4 else ""
        if nulls and default == f", {x}" and not OFFSET_IGNORE_NULLS_COLUMN_DEFAULT:
            nulls = ""  # Spark 3.5 may fail on it (helpers.py says why)
        return f"{name}({args}){nulls} over ({random_spec(rng, need_order=True)})"
    agg = rng.choice(["count", "count_star", "sum", "avg", "min", "max", "first", "last",
                      "min_by", "max_by", "stddev", "var_pop", "nth_value", "percentile",
                      "median", "covar_samp", "corr", "count_distinct", "set_size",
                      "sum_distinct", "mode", "approx_count_distinct", "percentile_approx",
                      "collect_set", "histogram_numeric", "listagg"])
    if agg == "median":
        # Spark allows median (and percentile_cont/disc) over a window only without ORDER BY.
        parts = rng.sample(PARTITION_KEYS, rng.randint(0, 2))
        return (f"median({rng.choice(NUMERIC_VALUES)}) over "
                f"({'partition by ' + ', '.join(parts) if parts else ''}) + 0.0")
    # A percentile of doubles holding -0.0 and 0.0 may be a zero whose sign Spark takes from its
    # hash map's order (test_percentiles.py): + 0.0 makes every zero positive.
    prefix, suffix = "", ""
    if agg == "count_star":
        call = "count(*)"
    elif agg == "nth_value":
        ignore_nulls = " ignore nulls" if rng.random() < 0.5 else ""
        call = f"nth_value({rng.choice(ANY_VALUES)}, {rng.randint(1, 4)}){ignore_nulls}"
    elif agg in ("sum", "avg") and rng.random() < 0.3:
        x = rng.choice(INTERVAL_SUMS)
        call = f"{agg}({x})"
        if x.startswith("make_ym"):  # Python reads no year-month intervals
            prefix, suffix = "cast(", " as string)"
    elif agg in ("sum", "avg", "stddev", "var_pop"):
        call = f"{agg}({rng.choice(NUMERIC_VALUES)})"
    elif agg == "count":
        call = f"count({rng.choice(ANY_VALUES)})"
    elif agg in ("first", "last"):
        ignore_nulls = ", true" if rng.random() < 0.5 else ""  # IGNORE NULLS, FILTER-compatible
        call = f"{agg}({rng.choice(ANY_VALUES)}{ignore_nulls})"
    elif agg in ("covar_samp", "corr"):
        call = f"{agg}({rng.choice(NUMERIC_VALUES)}, {rng.choice(NUMERIC_VALUES)})"
    elif agg == "percentile":
        x = rng.choice(NUMERIC_VALUES)
        percentage = rng.choice(["0.5", "0", "1", "0.25", "0.9", "array(0.1, 0.5, 1)"])
        if x.endswith("_dbl"):
            percentage, suffix = rng.choice(["0.5", "0.3", "1"]), " + 0.0"
        frequency = rng.choice(["", "", ", 2"])
        call = f"percentile({x}, {percentage}{frequency})"
    elif agg == "count_distinct":   # fastwindow's extension: rewritten to a set's size
        values = rng.sample(ANY_VALUES, rng.choice([1, 1, 2]))
        call = f"count(distinct {', '.join(values)})"
    elif agg == "sum_distinct":  # fastwindow's extension: a fold of sum/avg over the set
        call = f"{rng.choice(['sum', 'avg'])}(distinct {rng.choice(EXACT_SUM_VALUES)})"
    elif agg == "mode":
        # Ties broken by order (Spark 4.0+), else by Spark's hash map (such partitions go to
        # Spark); floating values are left to Spark.
        ordered = ", true" if SPARK_LINE >= (4, 0) else ""
        call = f"mode({rng.choice([v for v in ANY_VALUES if 'dbl' not in v])}{ordered})"
    elif agg == "set_size":
        # Sets of doubles: on fastwindow from Spark 4.2 (earlier sets keep NaNs apart).
        prefix, suffix = "size(", ")"
        call = f"collect_set({rng.choice([v for v in ANY_VALUES if 'dbl' not in v])})"
    elif agg == "approx_count_distinct":  # Spark's own sketch: its results exactly
        call = f"approx_count_distinct({rng.choice(ANY_VALUES)}{rng.choice(['', ', 0.02'])})"
    elif agg == "percentile_approx":  # an order statistic, or the partition goes to Spark
        percentage = rng.choice(["0.5", "0", "1", "0.25", "array(0.1, 0.5, 0.99)"])
        call = f"percentile_approx({rng.choice(NUMERIC_VALUES)}, {percentage}" \
               f"{rng.choice(['', ', 20', ', 1000'])})"
    elif agg == "collect_set":  # the array itself: Spark's own set, in its element order
        call = f"collect_set({rng.choice(ANY_VALUES)})"
    elif agg == "listagg":  # Spark's own, in frame order (Spark 4.0+; earlier: collect_list)
        x = rng.choice(ANY_VALUES[:-1])  # (no arrays: listagg takes strings and binaries)
        call = (f"listagg(cast({x} as string), '|')" if SPARK_LINE >= (4, 0)
                else f"collect_list({x})")
    elif agg == "histogram_numeric":  # Spark's own bins, values in frame order
        call = f"histogram_numeric({rng.choice(NUMERIC_VALUES)}, {rng.randint(2, 6)})"
    elif agg in ("min_by", "max_by"):
        call = f"{agg}({rng.choice(ANY_VALUES)}, {rng.choice(ORDERABLE_VALUES)})"
    else:
        call = f"{agg}({rng.choice(ORDERABLE_VALUES)})"
    if rng.random() < 0.2 and agg not in ("count_star", "nth_value"):  # nth_value takes no FILTER
        condition = rng.choice(EXACT_SUM_VALUES)
        if WINDOW_FILTER:  # (the same draws either way: the same queries on every line)
            call += f" filter (where {condition} > 0)"
    frame = rng.choice(["default", "whole_rows", "whole_range", "running_rows", "running_range",
                        "sliding_rows", "sliding_rows", "sliding_range", "sliding_range"])
    if frame.startswith("sliding"):
        # Sliding frames combine partial aggregates: exact for these and intervals (float sums and
        # moments may differ in the last bits and have their own tests with a tolerance).
        if agg in ("sum", "avg", "stddev", "var_pop", "covar_samp", "corr") and \
                "interval" not in call:
            call = f"{'sum' if agg == 'sum' else 'avg'}({rng.choice(EXACT_SUM_VALUES)})"
        if frame == "sliding_range":
            return f"{prefix}{call} over ({random_range_frame(rng)}){suffix}"
        return (f"{prefix}{call} over ({random_spec(rng, need_order=True)}"
                f"{random_rows_frame(rng)}){suffix}")
    spec = random_spec(rng, need_order=frame.startswith("running"))
    frames = {
        "default": "",
        "whole_rows": " rows between unbounded preceding and unbounded following",
        "whole_range": " range between unbounded preceding and unbounded following",
        "running_rows": " rows between unbounded preceding and current row",
        "running_range": " range between unbounded preceding and current row",
    }
    return f"{prefix}{call} over ({spec}{frames[frame]}){suffix}"


def random_query(rng: random.Random) -> str:
    cols = ", ".join(f"{random_function(rng)} as f{k}" for k in range(rng.randint(1, 4)))
    return f"select id, {cols} from rnd"


@pytest.fixture(scope="module")
def random_table(spark_session):
    rng = random.Random(SEED)
    python_rows_view(spark_session, "rnd", random_rows(rng, 150), SCHEMA)
    yield "rnd"


SPREAD_QUERIES = 48
SKEWED_QUERIES = 24


def _random_spread(spark, name: str, queries: range, confs) -> None:
    """Random queries (see SPREAD) run with ``confs``, each against Spark (or Spark's error)."""
    try:
        with session_confs(spark, confs):
            for k in queries:
                rng = random.Random(f"{SEED}-{name}-{k}")
                ansi = rng.random() < 0.5
                query = random_query(rng)
                try:
                    try:
                        assert_same_as_spark(spark, query, ansi=ansi)
                    except AssertionError:
                        raise
                    except Exception:  # noqa: BLE001 - as in test_random_queries
                        assert_same_error(spark, query, ansi=ansi)
                except Exception as e:
                    raise AssertionError(f"random {name} query #{k} (seed {SEED}, ansi={ansi}) "
                                         f"differs:\n{query}") from e
    finally:
        SPREAD["on"] = SPREAD["keys"] = False


@pytest.mark.parametrize("batch", range(2))
def test_random_spread_windows(spark, random_table, batch):
    """Random windows without PARTITION BY, ordered so that every row has its own place (the
    order of ties is the shuffle's, see below), spread over 5 ranges of 150 rows: the windows
    every function can spread over run across tasks, the others in one task."""
    SPREAD["on"] = True
    _random_spread(spark, "spread", range(batch * SPREAD_QUERIES // 2,
                                          (batch + 1) * SPREAD_QUERIES // 2),
                   {"spark.fastwindow.acrossTasks.enabled": "true",
                    "spark.sql.shuffle.partitions": "5",
                    "spark.sql.adaptive.coalescePartitions.enabled": "false"})


def test_random_skewed_key_windows(spark, random_table):
    """Random windows with PARTITION BY (one or two of the table's keys, each holding more than
    one task's share of the rows at 5 tasks, so every key is skewed), ordered as above: keys
    split over ranges where every function can spread, Spark's plan otherwise."""
    SPREAD["on"] = SPREAD["keys"] = True
    _random_spread(spark, "skewed", range(SKEWED_QUERIES),
                   {"spark.fastwindow.acrossTasks.enabled": "true",
                    "spark.fastwindow.acrossTasks.skewedKeys": "true",
                    "spark.fastwindow.acrossTasks.skewedKeys.minInputSize": "0",
                    "spark.sql.shuffle.partitions": "5",
                    "spark.sql.adaptive.coalescePartitions.enabled": "false"})


@pytest.mark.parametrize("batch", range(BATCHES))
def test_random_queries(spark, random_table, batch):
    per_batch = QUERIES // BATCHES
    for k in range(batch * per_batch, (batch + 1) * per_batch):
        rng = random.Random(f"{SEED}-{k}")
        ansi = rng.random() < 0.5
        query = random_query(rng)
        # How rows may be held: streamed (default), always buffered, streamed with a tiny
        # waiting-row limit so partitions overflow into the spillable buffer midway, streamed and
        # buffered functions split into two operators, a column memory limit so small that
        # partitions are handed to Spark's own frames, or each task's rows grouped by key and
        # each partition sorted alone instead of Spark's sort.
        holding = rng.choice([{}, {"spark.fastwindow.streaming.enabled": "false"},
                              {"spark.fastwindow.streaming.maxPendingRows": str(rng.randint(1, 5))},
                              {"spark.fastwindow.streaming.splitMixed": "true"},
                              {"spark.fastwindow.memory.maxPartitionBytes": "1k"},
                              {"spark.fastwindow.groupSort.enabled": "true"}])
        # Windows without PARTITION BY in one task, as Spark runs them: the random ORDER BY keys
        # have ties and NULLs, and the order Spark's sort leaves ties in (which row_number, lag
        # and ROWS frames read) depends on the order rows reach it, which a range shuffle changes
        # (its radix sort moves rows to make room for NULL keys). test_across_tasks.py compares
        # the spread windows over orders that decide every row.
        holding = {**holding, "spark.fastwindow.acrossTasks.enabled": "false"}
        for key, value in holding.items():
            spark.conf.set(key, value)
        try:
            try:
                assert_same_as_spark(spark, query, ansi=ansi)
            except AssertionError:
                raise
            except Exception:  # noqa: BLE001 - a query Spark itself fails (Spark 4.0's corr
                # divides by zero with ANSI on): fastwindow must fail with the same error
                assert_same_error(spark, query, ansi=ansi)
        except Exception as e:
            raise AssertionError(f"random query #{k} (seed {SEED}, ansi={ansi}, {holding}) "
                                 f"differs:\n{query}") from e
        finally:
            for key in holding:
                spark.conf.unset(key)
