"""The benchmark's data shapes (how the generated rows are keyed) and workloads (the window
expressions each query computes), with the default and ``--quick`` selections."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence


@dataclass(frozen=True)
class Shape:
    """How the generated rows are partitioned: ``rows_per_partition`` None = no PARTITION BY.
    ``scattered``: keys drawn by hash (rows of a key spread over the files, as in real tables)
    instead of runs of consecutive ids (which hand Spark's sort presorted input); ``keys`` of
    them, or rows / ``rows_per_partition``; one row per key is every row its own key.
    ``hot_share``: that share of the rows (drawn by hash) has one key of its own, key 0 (skew).
    ``cycling``: key = id mod keys, as ids assigned in order with keys repeating in a cycle."""
    name: str
    rows_per_partition: Optional[int]
    description: str
    scattered: bool = False
    keys: Optional[int] = None
    hot_share: float = 0.0
    #: keys = id mod (rows / rows_per_partition): every key once before any repeats
    cycling: bool = False


SHAPES: Dict[str, Shape] = {
    "small": Shape("small", 100, "many small partitions (100 rows each)"),
    "large": Shape("large", 100_000, "few large partitions (100k rows each)"),
    "none": Shape("none", None, "no PARTITION BY (one window partition)"),
    "keys20": Shape("keys20", 20, "rows / 20 keys drawn by hash (20 rows per key on average)",
                    scattered=True),
    "cycle20": Shape("cycle20", 20, "rows / 20 keys cycling in id order (key = id mod keys: "
                     "a key repeats only every rows / 20 rows)", cycling=True),
    "runs20": Shape("runs20", 20, "runs of 20 consecutive ids per key (keys sorted and clustered)"),
    "keys4": Shape("keys4", 4, "rows / 4 keys drawn by hash (4 rows per key on average)",
                   scattered=True),
    "keys2": Shape("keys2", 2, "rows / 2 keys drawn by hash (2 rows per key on average)",
                   scattered=True),
    "keys50k": Shape("keys50k", None, "50,000 keys drawn by hash", scattered=True, keys=50_000),
    "keys10k": Shape("keys10k", None, "10,000 keys drawn by hash", scattered=True, keys=10_000),
    "keys1k": Shape("keys1k", None, "1,000 keys drawn by hash", scattered=True, keys=1_000),
    "keys10": Shape("keys10", None, "10 keys drawn by hash", scattered=True, keys=10),
    "hotkey": Shape("hotkey", 20, "one key holds half of the rows (skew); the other half over "
                    "rows / 20 keys drawn by hash", scattered=True, hot_share=0.5),
    "distinct": Shape("distinct", 1, "every row its own key (a 64-bit hash of the row number)",
                      scattered=True),
}


@dataclass(frozen=True)
class Workload:
    """Window expressions over ``{w}`` (PARTITION BY p, when partitioned, ORDER BY ``order_key``)
    or ``{p}`` (the PARTITION BY clause alone)."""
    name: str
    group: str
    expressions: Sequence[str]
    window_size: Optional[int] = None
    order_key: str = "o"
    #: DuckDB's spelling, where it differs from Spark's
    duckdb_expressions: Optional[Sequence[str]] = None
    #: False where DuckDB has no function with the same results (its sketches are others)
    in_duckdb: bool = True
    #: A filter on the results (``r0`` is the first expression): a top-k per group, which
    #: Spark plans with a group limit below the window
    where: Optional[str] = None
    #: Every column of the table in the result (with its string column), not only p and o
    select_all: bool = False
    #: What the window reads instead of the table (``{table}`` in it): a child that is not a scan
    source: Optional[str] = None


def _moving(fn: str, col: str, w: int) -> Workload:
    return Workload(f"moving_{fn}_w{w}", "moving",
                    [f"{fn}({col}) OVER ({{w}} ROWS BETWEEN {w - 1} PRECEDING AND CURRENT ROW)"], w)


def _rolling_median(w: int) -> Workload:
    # Spark rejects median()/percentile_cont() over a frame; percentile(x, 0.5) is the same
    # interpolated median and is allowed.
    frame = f"ROWS BETWEEN {w - 1} PRECEDING AND CURRENT ROW"
    return Workload(f"rolling_median_w{w}", "median", [f"percentile(x, 0.5) OVER ({{w}} {frame})"],
                    w, duckdb_expressions=[f"median(x) OVER ({{w}} {frame})"])


WORKLOADS: List[Workload] = [
    Workload("row_number", "ranking", ["row_number() OVER ({w})"]),
    Workload("rank", "ranking", ["rank() OVER ({w})", "dense_rank() OVER ({w})"]),
    # Top-k per group: Spark plans a group limit (partial before the shuffle, final after) below
    # the window; its plan sorts every row twice.
    Workload("dedup_first", "topk", ["row_number() OVER ({w})"], where="r0 = 1"),
    # The latest row of each key, every column: later rows replace the kept one, and the whole
    # row (with a string) crosses the shuffle unless the partial limit drops it.
    Workload("dedup_latest", "topk", ["row_number() OVER ({p} ORDER BY ts DESC)"], where="r0 = 1",
             select_all=True),
    Workload("top3_rank", "topk", ["rank() OVER ({w})"], where="r0 <= 3"),
    Workload("top3_rank_rows", "topk", ["rank() OVER ({p} ORDER BY ts DESC)"], where="r0 <= 3",
             select_all=True),
    Workload("top3_dense_rank", "topk", ["dense_rank() OVER ({w})"], where="r0 <= 3"),
    # Where each row stands in its window: the size of the window decides every result, so one
    # task buffers the window (a seeded range knows the size and streams).
    Workload("rank_fractions", "ranking",
             ["percent_rank() OVER ({w})", "cume_dist() OVER ({w})", "ntile(10) OVER ({w})"]),
    # Share of the group's total (TPC-DS q12/q20/q98): whole-partition aggregates.
    Workload("share_of_total", "whole",
             ["v / sum(v) OVER ({p})", "count(*) OVER ({p})"]),
    # The same over doubles: by hash too, within float rounding (over Spark's sort with
    # spark.fastwindow.exactFloats: a floating sum's last bits follow the rows' order).
    Workload("share_of_total_double", "whole",
             ["x / sum(x) OVER ({p})", "count(*) OVER ({p})"]),
    # The group's totals alone (no division: every key, even of one row with v = 0, under ANSI).
    Workload("key_totals", "whole", ["sum(v) OVER ({p})", "count(*) OVER ({p})"]),
    # The share of the total after a join (a child that is not a scan, whose aggregates cannot
    # be computed where a scan reads the rows): Spark and fastwindow's one task move every row
    # into one task (with no PARTITION BY), fastwindow_spread splits them by a hash.
    Workload("joined_share", "whole", ["v / sum(v) OVER ({p})", "count(*) OVER ({p})"],
             source="(SELECT t.*, d.id AS dim FROM {table} t JOIN range(16) d ON t.o % 16 = d.id)",
             in_duckdb=False),
    # The same by a string key, which Spark sorts by comparisons (fastwindow: per key by hash).
    Workload("share_by_name", "whole",
             ["v / sum(v) OVER (PARTITION BY cast(p AS string))",
              "count(*) OVER (PARTITION BY cast(p AS string))"]),
    Workload("lag_lead", "offset", ["lag(v) OVER ({w})", "lead(v, 2) OVER ({w})"]),
    # The same over an ORDER BY with ties (x: 100,000 values), whose order ranges spread over
    # tasks must agree on; of the key itself, whose values ties do not change.
    Workload("lag_lead_ties", "offset", ["lag(x) OVER ({w})", "lead(x, 2) OVER ({w})"],
             order_key="x"),
    Workload("running_sum", "running",
             ["sum(v) OVER ({w} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"]),
    # Forward fill: the latest known value (one row in ten has one).
    Workload("forward_fill", "running", ["last(CASE WHEN v % 10 = 0 THEN x END, true) OVER ({w})"],
             duckdb_expressions=["last(CASE WHEN v % 10 = 0 THEN x END IGNORE NULLS) OVER ({w})"]),
    # The same over a string column (a label): the state holds the string.
    Workload("forward_fill_label", "running",
             ["last(CASE WHEN v % 10 = 0 THEN s END, true) OVER ({w})"],
             duckdb_expressions=["last(CASE WHEN v % 10 = 0 THEN s END IGNORE NULLS) OVER ({w})"]),
    # The previous and next known values (one row in ten has one).
    Workload("nearest_values", "offset",
             ["lag(CASE WHEN v % 10 = 0 THEN x END) IGNORE NULLS OVER ({w})",
              "lead(CASE WHEN v % 10 = 0 THEN x END) IGNORE NULLS OVER ({w})"]),
    # The first values so far (first() is nth_value(x, 1) to Spark's optimizer): an opening price.
    Workload("first_values", "running", ["first(x) OVER ({w})", "nth_value(v, 3) OVER ({w})"]),
    *[_moving("sum", "v", w) for w in (10, 100, 1000, 10000)],
    _moving("avg", "x", 100), _moving("min", "x", 100), _moving("max", "x", 1000),
    # Floating-point aggregates, whose sliding frames spark.fastwindow.exactFloats folds in
    # Spark's order (--systems fastwindow,fastwindow_exact,spark shows what that costs).
    _moving("avg", "x", 10), _moving("avg", "x", 1000), _moving("stddev", "x", 100),
    # Aggregates Comet hands back to Spark's WindowExec over sliding frames.
    Workload("moving_sum_decimal_w100", "moving",
             ["sum(d) OVER ({w} ROWS BETWEEN 99 PRECEDING AND CURRENT ROW)"], 100),
    Workload("moving_min_string_w100", "moving",
             ["min(s) OVER ({w} ROWS BETWEEN 99 PRECEDING AND CURRENT ROW)"], 100),
    Workload("shrinking_sum", "shrinking",
             ["sum(v) OVER ({w} ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)"]),
    Workload("shrinking_avg", "shrinking",
             ["avg(x) OVER ({w} ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)"]),
    Workload("whole_avg_max", "whole",
             ["avg(x) OVER ({p})", "max(d) OVER ({p})", "count(*) OVER ({p})"]),
    Workload("range_numeric", "range",
             ["sum(v) OVER ({w} RANGE BETWEEN 50 PRECEDING AND CURRENT ROW)"]),
    Workload("range_interval", "range",
             ["count(*) OVER ({w} RANGE BETWEEN INTERVAL 1 HOUR PRECEDING AND CURRENT ROW)"],
             order_key="ts"),
    Workload("mixed", "mixed",
             ["row_number() OVER ({w})", "lag(x) OVER ({w})",
              "sum(d) OVER ({w} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
              "avg(x) OVER ({w} ROWS BETWEEN 9 PRECEDING AND CURRENT ROW)", "max(x) OVER ({p})"]),
    # One window spec mixing streamed functions with a buffering one (percent_rank): a single
    # buffered operator, or two with --systems fastwindow_split.
    Workload("mixed_buffered", "mixed",
             ["row_number() OVER ({w})", "lag(x) OVER ({w})",
              "sum(d) OVER ({w} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
              "percent_rank() OVER ({w})"]),
    *[_rolling_median(w) for w in (100, 1000)],
    Workload("percentile_range", "median",
             ["percentile(x, 0.9) OVER ({w} RANGE BETWEEN 500 PRECEDING AND CURRENT ROW)"], 500,
             duckdb_expressions=["quantile_cont(x, 0.9) OVER "
                                 "({w} RANGE BETWEEN 500 PRECEDING AND CURRENT ROW)"]),
    # O(n^2) in Spark (it sorts every suffix): cancelled there on large partitions.
    Workload("shrinking_median", "median",
             ["percentile(x, 0.5) OVER ({w} ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)"],
             duckdb_expressions=["median(x) OVER "
                                 "({w} ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)"]),
    # Distinct counts: Spark builds each frame's set; count(DISTINCT) over a window is
    # fastwindow's extension (Spark rejects it; with fastwindow off, Spark runs its rewrite).
    Workload("distinct_count_w100", "distinct",
             ["size(collect_set(v % 100) OVER ({w} ROWS BETWEEN 99 PRECEDING AND CURRENT ROW))"],
             100, duckdb_expressions=["count(DISTINCT v % 100) OVER "
                                      "({w} ROWS BETWEEN 99 PRECEDING AND CURRENT ROW)"]),
    Workload("count_distinct_range", "distinct",
             ["count(DISTINCT v % 1000) OVER ({w} RANGE BETWEEN 500 PRECEDING AND CURRENT ROW)"],
             500),
    Workload("count_distinct_running", "distinct",
             ["count(DISTINCT x) OVER ({w} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"]),
    # Distinct sums and averages: fastwindow's extension too (a fold of sum/avg over the set).
    Workload("sum_avg_distinct_w100", "distinct",
             ["sum(DISTINCT v % 100) OVER ({w} ROWS BETWEEN 99 PRECEDING AND CURRENT ROW)",
              "avg(DISTINCT x) OVER ({w} ROWS BETWEEN 99 PRECEDING AND CURRENT ROW)"],
             100),
    # Modes: Spark counts each frame's values again; ties broken by the values' order.
    Workload("rolling_mode_w100", "mode",
             ["mode(v % 20, true) OVER ({w} ROWS BETWEEN 99 PRECEDING AND CURRENT ROW)"], 100,
             duckdb_expressions=["mode(v % 20) OVER "
                                 "({w} ROWS BETWEEN 99 PRECEDING AND CURRENT ROW)"]),
    # Sketches: Spark sketches each frame again; fastwindow keeps the frame's registers (its
    # results are Spark's exactly) or reads an order statistic where that is Spark's answer.
    # DuckDB's sketches are other algorithms with other results: not compared.
    Workload("approx_count_distinct_w1000", "sketch",
             ["approx_count_distinct(v) OVER ({w} ROWS BETWEEN 999 PRECEDING AND CURRENT ROW)"],
             1000, in_duckdb=False),
    Workload("percentile_approx_w100", "sketch",
             ["percentile_approx(x, 0.5) OVER ({w} ROWS BETWEEN 99 PRECEDING AND CURRENT ROW)"],
             100, in_duckdb=False),
]

MODES = ["window-only", "end-to-end"]

QUICK_WORKLOADS = ["row_number", "lag_lead", "running_sum", "moving_sum_w10", "moving_max_w1000",
                   "shrinking_sum", "whole_avg_max", "mixed"]
