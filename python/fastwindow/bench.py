"""``python -m fastwindow bench``: fastwindow vs Spark (default frames and segment tree) vs DuckDB.

For every (data shape, workload) the systems run interleaved — warm-up, then ``--repeat`` rounds
of one run per system — and the suite reports the median with min and max. Two timings:

* **window-only**: the input is read from Parquet, partitioned by the PARTITION BY key, sorted and
  cached first; the measured plan is checked to contain no Exchange or Sort above the cached scan,
  so only the window operator (plus the cached scan and a no-op sink) is timed;
* **end-to-end** (not in ``--quick``): the same query straight from the Parquet files, shuffle and
  sort included.

With ``--systems ...,shuffle_only`` (end-to-end mode) a reference runs too: the columns the query
reads, shuffled by its PARTITION BY key into the same sink, without the window. Every plan that
shuffles every row pays at least that, so Spark's time over it (the **ceiling**) is the most any
window operator running after the shuffle could gain on this machine.

DuckDB (when installed) runs the same SQL over a table loaded from the same Parquet files, so its
time includes its own sort: it is a single-node reference, not a like-for-like operator timing.

Before a speedup is reported, the systems' results are compared: per output column the row count
of non-nulls, the sum of xxhash64 of the values (exact columns) and the sum of the values (float
columns, relative tolerance 1e-9 — float sums over sliding frames may differ in the last bits).
The operator that actually ran each workload with fastwindow enabled is read from the plan, so a
fallback to Spark is shown as such and never as a speedup.

Outputs in ``--out`` (default ``bench-results/``): ``results.json`` (raw runs, machine, load),
``results.md`` (ratios) and ``speedup.png`` / ``window_size.png`` (matplotlib, when installed).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import statistics
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from ._session import ENABLED_KEY, configure, explain

__all__ = ["main", "WORKLOADS", "SHAPES"]

SEGMENT_TREE_KEY = "spark.sql.window.segmentTree.enabled"
SPLIT_MIXED_KEY = "spark.fastwindow.streaming.splitMixed"
EXACT_FLOATS_KEY = "spark.fastwindow.exactFloats"
GROUP_SORT_KEY = "spark.fastwindow.groupSort.enabled"
FLOAT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Shape:
    """How the generated rows are partitioned: ``rows_per_partition`` None = no PARTITION BY.
    ``scattered``: keys drawn by hash (rows of a key spread over the files, as in real tables)
    instead of runs of consecutive ids (which hand Spark's sort presorted input); ``keys`` of
    them, or rows / ``rows_per_partition``; one row per key is every row its own key."""
    name: str
    rows_per_partition: Optional[int]
    description: str
    scattered: bool = False
    keys: Optional[int] = None


SHAPES: Dict[str, Shape] = {
    "small": Shape("small", 100, "many small partitions (100 rows each)"),
    "large": Shape("large", 100_000, "few large partitions (100k rows each)"),
    "none": Shape("none", None, "no PARTITION BY (one window partition)"),
    "keys20": Shape("keys20", 20, "rows / 20 keys drawn by hash (20 rows per key on average)",
                    scattered=True),
    "keys4": Shape("keys4", 4, "rows / 4 keys drawn by hash (4 rows per key on average)",
                   scattered=True),
    "keys2": Shape("keys2", 2, "rows / 2 keys drawn by hash (2 rows per key on average)",
                   scattered=True),
    "keys50k": Shape("keys50k", None, "50,000 keys drawn by hash", scattered=True, keys=50_000),
    "keys10k": Shape("keys10k", None, "10,000 keys drawn by hash", scattered=True, keys=10_000),
    "keys10": Shape("keys10", None, "10 keys drawn by hash", scattered=True, keys=10),
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
    Workload("top3_rank", "topk", ["rank() OVER ({w})"], where="r0 <= 3"),
    Workload("top3_dense_rank", "topk", ["dense_rank() OVER ({w})"], where="r0 <= 3"),
    # Share of the group's total (TPC-DS q12/q20/q98): whole-partition aggregates.
    Workload("share_of_total", "whole",
             ["v / sum(v) OVER ({p})", "count(*) OVER ({p})"]),
    # The same by a string key, which Spark sorts by comparisons (fastwindow: per key by hash).
    Workload("share_by_name", "whole",
             ["v / sum(v) OVER (PARTITION BY cast(p AS string))",
              "count(*) OVER (PARTITION BY cast(p AS string))"]),
    Workload("lag_lead", "offset", ["lag(v) OVER ({w})", "lead(v, 2) OVER ({w})"]),
    Workload("running_sum", "running",
             ["sum(v) OVER ({w} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"]),
    *[_moving("sum", "v", w) for w in (10, 100, 1000, 10000)],
    _moving("avg", "x", 100), _moving("min", "x", 100), _moving("max", "x", 1000),
    # Floating-point aggregates, whose sliding frames spark.fastwindow.exactFloats folds in
    # Spark's order (--systems fastwindow,fastwindow_exact,spark shows what that costs).
    _moving("avg", "x", 10), _moving("avg", "x", 1000), _moving("stddev", "x", 100),
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


@dataclass
class SystemResult:
    system: str
    seconds: List[float] = field(default_factory=list)
    note: str = ""

    @property
    def median(self) -> Optional[float]:
        return statistics.median(self.seconds) if self.seconds else None


@dataclass
class Case:
    shape: str
    workload: str
    group: str
    window_size: Optional[int]
    rows: int
    mode: str                       # "window-only" or "end-to-end"
    operator: str = ""              # who ran it with fastwindow enabled
    results_agree: Optional[bool] = None
    disagreement: str = ""
    systems: Dict[str, SystemResult] = field(default_factory=dict)


# ------------------------------------------------------------------------------------------------
# SQL


def query_sql(workload: Workload, shape: Shape, table: str, duckdb: bool = False) -> str:
    part = "PARTITION BY p " if shape.rows_per_partition or shape.scattered else ""
    specs = {"w": f"{part}ORDER BY {workload.order_key}", "p": part.strip()}
    expressions = (workload.duckdb_expressions or workload.expressions) if duckdb \
        else workload.expressions
    cols = ", ".join(f"{e.format(**specs)} AS r{k}" for k, e in enumerate(expressions))
    query = f"SELECT p, o, {cols} FROM {table}"
    return f"SELECT * FROM ({query}) WHERE {workload.where}" if workload.where else query


#: The generated table's columns a query may read besides p and o.
_VALUE_COLUMNS = ("ts", "x", "v", "d")


def _partition_by(sql: str) -> Optional[str]:
    """The first PARTITION BY expression list in `sql` (up to ORDER BY or its window's ')')."""
    start = sql.find("PARTITION BY ")
    if start < 0:
        return None
    depth, i = 0, start + len("PARTITION BY ")
    while i < len(sql) and not (depth == 0 and (sql[i] == ")" or sql.startswith(" ORDER BY", i))):
        depth += {"(": 1, ")": -1}.get(sql[i], 0)
        i += 1
    return sql[start + len("PARTITION BY "):i].strip()


def shuffle_only_sql(workload: Workload, shape: Shape, table: str) -> Optional[str]:
    """The end-to-end query without its window: the columns it reads, shuffled by its PARTITION BY
    key (as Spark's plan shuffles them) into the same sink. None where the plan does not shuffle
    every row by that key: no PARTITION BY, or a top-k, whose partial limit runs before the
    shuffle."""
    sql = query_sql(workload, shape, table)
    key = _partition_by(sql)
    if key is None or workload.where:
        return None
    read = " ".join(workload.expressions) + " " + workload.order_key
    columns = ["p", "o"] + [c for c in _VALUE_COLUMNS if re.search(rf"\b{c}\b", read)]
    return f"SELECT {', '.join(columns)} FROM {table} DISTRIBUTE BY {key}"


def _generate_parquet(spark: Any, shape: Shape, rows: int, path: Path) -> None:
    if shape.scattered and shape.rows_per_partition == 1:
        part = "xxhash64(id, 4)"
    elif shape.scattered:
        keys = shape.keys or rows // shape.rows_per_partition
        part = f"pmod(xxhash64(id, 4), {max(keys, 1)})"
    else:
        part = f"id div {shape.rows_per_partition}" if shape.rows_per_partition else "0"
    spark.range(0, rows, 1, 4).selectExpr(
        f"{part} AS p",
        "id AS o",
        "timestamp_seconds(1704067200 + id * 7) AS ts",                  # 7 s apart: ~514 per hour
        "CAST(pmod(xxhash64(id, 1), 100000) AS DOUBLE) / 7 AS x",
        "CASE WHEN pmod(id, 13) = 0 THEN NULL ELSE pmod(xxhash64(id, 2), 1000000) - 500000 END AS v",
        "CAST(pmod(xxhash64(id, 3), 1000000) AS DECIMAL(12, 0)) / 100 AS d",
    ).write.mode("overwrite").parquet(str(path))


# ------------------------------------------------------------------------------------------------
# Systems


@dataclass(frozen=True)
class System:
    name: str
    confs: Dict[str, str]


SPARK_SYSTEMS = [
    System("fastwindow", {ENABLED_KEY: "true", SEGMENT_TREE_KEY: "false", SPLIT_MIXED_KEY: "false",
                          EXACT_FLOATS_KEY: "false", GROUP_SORT_KEY: "true"}),
    # Spark's sort of the whole task below FastWindow, instead of each task's rows grouped by key
    # by hash and each window partition sorted alone (spark.fastwindow.groupSort.enabled off).
    System("fastwindow_sorted",
           {ENABLED_KEY: "true", SEGMENT_TREE_KEY: "false", SPLIT_MIXED_KEY: "false",
            EXACT_FLOATS_KEY: "false", GROUP_SORT_KEY: "false"}),
    # Mixed streamed/buffering windows as two operators (see spark.fastwindow.streaming.splitMixed).
    System("fastwindow_split",
           {ENABLED_KEY: "true", SEGMENT_TREE_KEY: "false", SPLIT_MIXED_KEY: "true",
            EXACT_FLOATS_KEY: "false", GROUP_SORT_KEY: "true"}),
    # Floating-point aggregates over sliding frames in Spark's order (spark.fastwindow.exactFloats).
    System("fastwindow_exact",
           {ENABLED_KEY: "true", SEGMENT_TREE_KEY: "false", SPLIT_MIXED_KEY: "false",
            EXACT_FLOATS_KEY: "true", GROUP_SORT_KEY: "true"}),
    System("spark", {ENABLED_KEY: "false", SEGMENT_TREE_KEY: "false"}),
    System("spark_segtree", {ENABLED_KEY: "false", SEGMENT_TREE_KEY: "true"}),
]


#: Systems compared with fastwindow in reports (ratio = theirs / fastwindow's), in column order.
OTHER_SYSTEMS = ("fastwindow_split", "fastwindow_exact", "fastwindow_sorted", "spark",
                 "spark_segtree", "duckdb")
#: The reference without a window (see the module's doc): reported as Spark's ceiling, no ratio.
SHUFFLE_ONLY = "shuffle_only"


def _segment_tree_available(spark: Any) -> bool:
    """Whether this Spark defines spark.sql.window.segmentTree.enabled (SET -v lists defined keys)."""
    return spark.sql("SET -v").filter(f"key = '{SEGMENT_TREE_KEY}'").count() > 0


def _set(spark: Any, confs: Dict[str, str]) -> None:
    for k, v in confs.items():
        spark.conf.set(k, v)


def _timed(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _unmeasured_above_cache(plan: str) -> List[str]:
    """Exchange/Sort operators of `plan` outside the cached input's own plan."""
    top = plan.split("InMemoryTableScan")[0]
    return [op for op in ("Exchange", "Sort [") if op in top]


def _checksum_sql(query: str, columns: Sequence[str], float_columns: Sequence[str]) -> str:
    parts = ["count(*)"]
    for c in columns:
        parts.append(f"count({c})")
        parts.append(f"sum(CAST({c} AS DOUBLE))" if c in float_columns
                     else f"sum(CAST(xxhash64({c}) AS DECIMAL(38, 0)))")
    return f"SELECT {', '.join(parts)} FROM ({query})"


def _compare_checksums(a: Sequence[Any], b: Sequence[Any]) -> Optional[str]:
    for k, (x, y) in enumerate(zip(a, b)):
        if isinstance(x, float) or isinstance(y, float):
            if x is None or y is None or math.isnan(x) or math.isnan(y):
                same = (x is None and y is None) or (x is not None and y is not None
                                                     and math.isnan(x) and math.isnan(y))
            else:
                same = math.isclose(x, y, rel_tol=FLOAT_TOLERANCE, abs_tol=1e-6)
        else:
            same = x == y
        if not same:
            return f"checksum field {k}: {x!r} vs {y!r}"
    return None


# ------------------------------------------------------------------------------------------------
# Running


class TimeLimitExceeded(Exception):
    """A Spark run was cancelled after --max-seconds (recorded as such, not as a time)."""


class Runner:
    def __init__(self, spark: Any, args: argparse.Namespace, duck: Any) -> None:
        self.spark = spark
        self.args = args
        self.duck = duck
        self.systems = [s for s in SPARK_SYSTEMS if s.name in args.systems]
        if any(s.name == "spark_segtree" for s in self.systems) and not _segment_tree_available(spark):
            print(f"note: {SEGMENT_TREE_KEY} is not defined in this Spark; skipping spark_segtree")
            self.systems = [s for s in self.systems if s.name != "spark_segtree"]
        self.cases: List[Case] = []

    def _with_time_limit(self, action: Callable[[], Any]) -> None:
        """Runs a Spark action, cancelling its jobs after --max-seconds (quadratic baselines on
        large partitions would otherwise take hours)."""
        sc = self.spark.sparkContext
        timer = threading.Timer(self.args.max_seconds, sc.cancelAllJobs)
        timer.start()
        try:
            action()
        except Exception as exc:
            if not timer.is_alive():
                raise TimeLimitExceeded() from exc
            raise
        finally:
            timer.cancel()

    def run_shape(self, shape: Shape, rows: int, workloads: Sequence[Workload]) -> None:
        data = Path(self.args.out) / "data" / f"{shape.name}_{rows}.parquet"
        if not data.exists():
            _generate_parquet(self.spark, shape, rows, data)
        raw = self.spark.read.parquet(str(data))
        raw.createOrReplaceTempView(f"raw_{shape.name}")
        if self.duck is not None:
            self.duck.execute(f"CREATE OR REPLACE TABLE duck_{shape.name} AS "
                              f"SELECT * FROM read_parquet('{data}/*.parquet')")
        cached: Dict[str, Any] = {}
        try:
            for workload in workloads:
                key = workload.order_key
                if key not in cached:      # partitioned and sorted as the window needs, cached
                    prepared = (
                        raw.repartition(self.args.partitions, "p").sortWithinPartitions("p", key)
                        if shape.rows_per_partition or shape.scattered
                        else raw.repartition(1).sortWithinPartitions(key)).cache()
                    prepared.count()
                    prepared.createOrReplaceTempView(f"cached_{shape.name}_{key}")
                    cached[key] = prepared
                for mode in self.args.modes:
                    table = (f"cached_{shape.name}_{key}" if mode == "window-only"
                             else f"raw_{shape.name}")
                    try:
                        self.cases.append(self._run_case(shape, rows, workload, mode, table))
                    except Exception as exc:  # one broken case must not lose the others
                        case = Case(shape.name, workload.name, workload.group,
                                    workload.window_size, rows, mode, operator="error",
                                    results_agree=False,
                                    disagreement=f"failed: {str(exc).splitlines()[0][:200]}")
                        print(_case_line(case), flush=True)
                        self.cases.append(case)
        finally:
            for prepared in cached.values():
                prepared.unpersist()

    def _run_case(self, shape: Shape, rows: int, workload: Workload, mode: str,
                  table: str) -> Case:
        case = Case(shape.name, workload.name, workload.group, workload.window_size, rows, mode)
        sql = query_sql(workload, shape, table)
        columns = [f"r{k}" for k in range(len(workload.expressions))]

        _set(self.spark, SPARK_SYSTEMS[0].confs)
        df = self.spark.sql(sql)
        reports = explain(df)
        case.operator = "+".join(sorted({r.operator for r in reports})) or "none"
        plan = df._jdf.queryExecution().executedPlan().toString()
        float_columns = [c for c, f in zip(columns, df.schema.fields[2:])
                         if f.dataType.typeName() in ("double", "float")]
        if mode == "window-only":
            leaked = _unmeasured_above_cache(plan)
            if leaked:
                case.disagreement = f"window-only plan still has {leaked} above the cached input"

        runs: Dict[str, Callable[[], Any]] = {}
        for system in self.systems:
            def spark_run(s: System = system) -> None:
                _set(self.spark, s.confs)
                self._with_time_limit(
                    lambda: self.spark.sql(sql).write.format("noop").mode("overwrite").save())
            runs[system.name] = spark_run
        shuffle_only = (shuffle_only_sql(workload, shape, table)
                        if mode == "end-to-end" and SHUFFLE_ONLY in self.args.systems else None)
        if shuffle_only is not None:
            runs[SHUFFLE_ONLY] = lambda: self._with_time_limit(
                lambda: self.spark.sql(shuffle_only).write.format("noop").mode("overwrite").save())
        duck = self.duck if workload.in_duckdb else None
        if duck is not None:
            duck_sql = query_sql(workload, shape, f"duck_{shape.name}", duckdb=True)
            runs["duckdb"] = lambda: self.duck.execute(
                f"CREATE OR REPLACE TEMP TABLE bench_out AS {duck_sql}")
        case.systems = {name: SystemResult(name) for name in runs}

        # Results first: a speedup only counts when the answers agree.
        sums = {}
        checksum = _checksum_sql(sql, columns, float_columns)
        for system in self.systems:
            _set(self.spark, system.confs)
            try:
                self._with_time_limit(
                    lambda: sums.__setitem__(system.name, list(self.spark.sql(checksum).first())))
            except TimeLimitExceeded:
                case.systems[system.name].note = f"cancelled after {self.args.max_seconds:.0f}s"
        if duck is not None:
            duck_checksum = _checksum_sql(duck_sql, columns, float_columns).replace("xxhash64", "hash")
            # DuckDB hashes differently: compare only counts and float sums with it.
            sums["duckdb"] = list(self.duck.execute(duck_checksum).fetchone())
        reference = sums.get("spark") or next(iter(sums.values()))
        problems = []
        for name, values in sums.items():
            if name == "duckdb":
                comparable = [k for k in range(len(values)) if k == 0 or (k - 1) % 2 == 0
                              or columns[(k - 1) // 2] in float_columns]
                diff = _compare_checksums([values[k] for k in comparable],
                                          [reference[k] for k in comparable])
            else:
                diff = _compare_checksums(values, reference)
            if diff:
                problems.append(f"{name}: {diff}")
        case.results_agree = (not problems) if len(sums) > 1 else None
        case.disagreement = "; ".join(filter(None, [case.disagreement] + problems))

        budget = self.args.max_seconds
        for name, action in runs.items():               # warm-up (and the slow-system check)
            if case.systems[name].note:
                continue
            try:
                first = _timed(action)
            except TimeLimitExceeded:
                case.systems[name].note = f"cancelled after {budget:.0f}s"
                continue
            if first > budget / 2:
                case.systems[name].seconds.append(first)
                case.systems[name].note = f"1 run: warm-up took {first:.0f}s"
        for _ in range(self.args.repeat):                # interleaved rounds
            for name, action in runs.items():
                if not case.systems[name].note:
                    case.systems[name].seconds.append(_timed(action))
        _set(self.spark, SPARK_SYSTEMS[0].confs)
        print(_case_line(case), flush=True)
        return case


# ------------------------------------------------------------------------------------------------
# Reporting


def _ratio(case: Case, other: str) -> Optional[float]:
    fast = case.systems.get("fastwindow")
    slow = case.systems.get(other)
    if not fast or not slow or not fast.median or not slow.median:
        return None
    return slow.median / fast.median


def _ceiling(case: Case) -> Optional[float]:
    """Spark's time over the shuffle alone: the most a window after the shuffle could gain."""
    spark, floor = case.systems.get("spark"), case.systems.get(SHUFFLE_ONLY)
    if not spark or not floor or not spark.median or not floor.median:
        return None
    return spark.median / floor.median


def _case_line(case: Case) -> str:
    times = "  ".join(f"{n} {r.median:.3f}s" for n, r in case.systems.items() if r.median)
    ratios = "  ".join(f"vs {o} {_ratio(case, o):.2f}x" for o in case.systems
                       if o not in ("fastwindow", SHUFFLE_ONLY) and _ratio(case, o))
    if _ceiling(case):
        ratios += f"  (ceiling {_ceiling(case):.2f}x)"
    ok = {True: "agree", None: "unchecked (one system finished)"}.get(
        case.results_agree, f"DIFFER ({case.disagreement})")
    return (f"{case.shape:5s} {case.mode:11s} {case.workload:20s} [{case.operator}] "
            f"{times}  |  {ratios}  | results {ok}")


def machine_info(spark: Any) -> Dict[str, Any]:
    jvm = spark.sparkContext._jvm
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) * 1024
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "memory_bytes": mem,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "spark": spark.version,
        "java": str(jvm.java.lang.System.getProperty("java.version")),
        "master": spark.sparkContext.master,
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def markdown(cases: Sequence[Case], info: Dict[str, Any], command: str) -> str:
    others = [s for s in OTHER_SYSTEMS if any(s in c.systems for c in cases)]
    floors = any(SHUFFLE_ONLY in c.systems for c in cases)
    lines = [
        f"Command: `{command}`  ",
        f"Machine: {info['cores']} cores, {round((info['memory_bytes'] or 0) / 2**30)} GiB, "
        f"Spark {info['spark']} ({info['master']}), Java {info['java']}, Python {info['python']}; "
        f"load average before {info['load_average']}, after {info.get('load_average_after')}",
        "",
        "Median of the timed runs (min–max); ratio = other system's median / fastwindow's. "
        "`ran on` is the operator Spark used with fastwindow enabled (`Window` = fallback).",
        "",
        "| shape | mode | workload | ran on | fastwindow s | " +
        " | ".join(f"{o} s | {o} / fastwindow" for o in others) +
        (" | shuffle only s | ceiling (spark / shuffle only)" if floors else "") + " | results |",
        "|" + "---|" * (5 + 2 * len(others) + (2 if floors else 0) + 1),
    ]
    for c in cases:
        fw = c.systems.get("fastwindow")
        row = [c.shape, c.mode, c.workload, c.operator, _fmt(fw)]
        for o in others:
            r = _ratio(c, o)
            row += [_fmt(c.systems.get(o)), f"**{r:.2f}x**" if r else "–"]
        if floors:
            row += [_fmt(c.systems.get(SHUFFLE_ONLY)), f"{_ceiling(c):.2f}x" if _ceiling(c) else "–"]
        row.append({True: "agree", None: "unchecked (one system finished)"}.get(
            c.results_agree, f"DIFFER: {c.disagreement}"))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def _fmt(r: Optional[SystemResult]) -> str:
    if r and not r.seconds and r.note:
        return f"> ({r.note})"
    if not r or not r.seconds:
        return "–"
    if len(r.seconds) == 1:
        return f"{r.seconds[0]:.2f} ({r.note or '1 run'})"
    return f"{r.median:.3f} ({min(r.seconds):.3f}–{max(r.seconds):.3f})"


def charts(cases: Sequence[Case], out: Path) -> List[str]:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("note: matplotlib is not installed; no charts (pip install 'fastwindow[bench]')")
        return []
    written = []
    shown = [c for c in cases if c.mode == "window-only"]
    others = [s for s in OTHER_SYSTEMS if any(s in c.systems for c in shown)]
    if shown:
        fig, ax = plt.subplots(figsize=(min(24, max(8, 0.45 * len(shown))), 6))
        width = 0.8 / max(1, len(others))
        for k, o in enumerate(others):
            xs = [i + k * width for i in range(len(shown))]
            ys = [_ratio(c, o) or float("nan") for c in shown]
            ax.bar(xs, ys, width, label=f"{o} time / fastwindow time")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_xticks([i + width * (len(others) - 1) / 2 for i in range(len(shown))])
        ax.set_xticklabels([f"{c.workload}\n{c.shape}" + ("" if c.operator == "FastWindow"
                                                           else f"\n[{c.operator}]")
                            for c in shown], rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("speedup of fastwindow (log scale, >1 = faster)")
        ax.set_title("fastwindow speedup, window-only time (median)")
        ax.legend(fontsize=8)
        written.append(_save(plt, fig, out / "speedup.png"))
    sized = [c for c in shown if c.group == "moving" and c.window_size]
    if sized:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        colors = {"fastwindow": "tab:red", "fastwindow_split": "tab:orange",
                  "fastwindow_exact": "tab:purple", "fastwindow_sorted": "tab:brown",
                  "spark": "tab:blue", "spark_segtree": "tab:green",
                  "duckdb": "tab:gray"}
        styles = dict(zip(sorted({c.shape for c in sized}), ["-", "--", ":"]))
        for shape in sorted({c.shape for c in sized}):
            for system in ("fastwindow", *others):
                pts = sorted((c.window_size, c.systems[system].median / c.rows * 1e9)
                             for c in sized if c.shape == shape and system in c.systems
                             and c.systems[system].median and c.workload.startswith("moving_sum"))
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                            color=colors.get(system), linestyle=styles[shape],
                            label=f"{system} ({shape})")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("window size w (ROWS BETWEEN w-1 PRECEDING AND CURRENT ROW), moving sum")
        ax.set_ylabel("ns per row (median, window-only)")
        ax.set_title("time per row vs window size")
        ax.legend(fontsize=7)
        written.append(_save(plt, fig, out / "window_size.png"))
    return written


def _save(plt: Any, fig: Any, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name


# ------------------------------------------------------------------------------------------------
# CLI


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m fastwindow bench", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="a short run (< 2 minutes): small partitions, a subset of workloads, "
                        "window-only time")
    p.add_argument("--rows", type=int, help="rows per shape (default 1,000,000; quick 200,000)")
    p.add_argument("--shapes", default=None,
                   help=f"comma-separated shapes among {', '.join(SHAPES)} (default all; quick small)")
    p.add_argument("--workloads", default=None,
                   help="comma-separated workload names or groups (default all; quick a subset)")
    p.add_argument("--systems", default="fastwindow,spark,spark_segtree,duckdb",
                   help="comma-separated systems to compare, among fastwindow, "
                        "fastwindow_split (spark.fastwindow.streaming.splitMixed on), "
                        "fastwindow_exact (spark.fastwindow.exactFloats on), fastwindow_sorted "
                        "(spark.fastwindow.groupSort.enabled off), spark, "
                        "spark_segtree, duckdb, shuffle_only (end to end: the input shuffled "
                        "by the window's key without the window, Spark's ceiling)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per system (median reported)")
    p.add_argument("--max-seconds", type=float, default=60.0,
                   help="a Spark run taking longer is cancelled and reported as such; a warm-up "
                        "taking over half of it is the only run of that system")
    p.add_argument("--modes", default=None,
                   help="comma-separated modes among window-only, end-to-end (default both; "
                        "quick window-only)")
    p.add_argument("--partitions", type=int, default=2, help="Spark partitions of the input")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--driver-memory", default="6g")
    p.add_argument("--out", default="bench-results", help="output directory")
    p.add_argument("--list", action="store_true", help="list workloads and shapes, then exit")
    p.add_argument("--replot", metavar="DIR",
                   help="redraw the charts and markdown of an earlier run's DIR/results.json")
    return p


def _select_workloads(spec: Optional[str], quick: bool) -> List[Workload]:
    if spec is None:
        names = QUICK_WORKLOADS if quick else [w.name for w in WORKLOADS]
        return [w for w in WORKLOADS if w.name in names]
    wanted = {s.strip() for s in spec.split(",") if s.strip()}
    chosen = [w for w in WORKLOADS if w.name in wanted or w.group in wanted]
    unknown = wanted - {w.name for w in chosen} - {w.group for w in chosen}
    if unknown:
        raise SystemExit(f"bench: unknown workloads {sorted(unknown)}; see --list")
    return chosen


def replot(out: Path) -> int:
    """Rewrites results.md and the charts of an earlier run from its results.json."""
    data = json.loads((out / "results.json").read_text())
    cases = []
    for c in data["cases"]:
        systems = {n: SystemResult(**r) for n, r in c.pop("systems").items()}
        cases.append(Case(**c, systems=systems))
    (out / "results.md").write_text(markdown(cases, data["machine"], data["command"]))
    charts(cases, out)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(list(argv) if argv is not None else None)
    if args.list:
        for w in WORKLOADS:
            print(f"{w.name:22s} {w.group:10s} {'; '.join(w.expressions)}")
        for s in SHAPES.values():
            print(f"shape {s.name:6s} {s.description}")
        return 0
    if args.replot:
        return replot(Path(args.replot))
    rows = args.rows or (200_000 if args.quick else 1_000_000)
    shape_names = (args.shapes or ("small" if args.quick else ",".join(SHAPES))).split(",")
    unknown = [s for s in shape_names if s not in SHAPES]
    if unknown or rows < 1 or args.repeat < 1:
        print(f"bench: bad arguments (unknown shapes {unknown}, rows {rows}, repeat {args.repeat})",
              file=sys.stderr)
        return 2
    workloads = _select_workloads(args.workloads, args.quick)
    args.modes = (args.modes or ("window-only" if args.quick else ",".join(MODES))).split(",")
    if any(m not in MODES for m in args.modes):
        print(f"bench: unknown modes {args.modes}; choose among {', '.join(MODES)}", file=sys.stderr)
        return 2
    args.systems = [s.strip() for s in args.systems.split(",")]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    duck = None
    if "duckdb" in args.systems:
        try:
            import duckdb
            duck = duckdb.connect()
            duck.execute(f"SET threads TO {os.cpu_count() or 1}")
        except ImportError:
            print("note: duckdb is not installed; skipping it (pip install 'fastwindow[bench]')")

    from pyspark.sql import SparkSession

    spark = configure(
        SparkSession.builder.master(args.master).appName("fastwindow-bench")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.sql.shuffle.partitions", str(args.partitions))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
    ).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    command = "python -m fastwindow bench " + " ".join(argv if argv is not None else sys.argv[1:])
    try:
        info = machine_info(spark)
        runner = Runner(spark, args, duck)
        print(f"fastwindow bench: {rows:,} rows per shape, shapes {shape_names}, "
              f"{len(workloads)} workloads, systems {[s.name for s in runner.systems]}"
              f"{' + duckdb' if duck else ''}, {args.repeat} timed runs each", flush=True)
        for name in shape_names:
            runner.run_shape(SHAPES[name], rows, workloads)
        info["load_average_after"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    finally:
        spark.stop()
        if duck is not None:
            duck.close()
    cases = runner.cases
    (out / "results.json").write_text(json.dumps(
        {"command": command, "machine": info, "float_tolerance": FLOAT_TOLERANCE,
         "cases": [asdict(c) for c in cases]}, indent=2))
    (out / "results.md").write_text(markdown(cases, info, command))
    written = charts(cases, out)
    print(f"\nwrote {out / 'results.json'}, {out / 'results.md'}"
          + "".join(f", {out / w}" for w in written))
    disagreeing = [c for c in cases if c.results_agree is False]
    if disagreeing:
        print(f"bench: {len(disagreeing)} case(s) where the systems' results differ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
