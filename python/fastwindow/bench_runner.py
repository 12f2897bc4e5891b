"""Running the cases: per shape the input is generated and cached, per workload and mode the
systems' results are compared, then each system is warmed up and timed in interleaved rounds."""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

from ._session import explain
from .bench_data import _generate_parquet
from .bench_queries import _checksum_sql, _compare_checksums, query_sql, shuffle_only_sql
from .bench_results import Case, SystemResult, _case_line
from .bench_systems import (SEGMENT_TREE_KEY, SHUFFLE_ONLY, SPARK_SYSTEMS, System,
                            _segment_tree_available, _set, reference_system)
from .bench_tasks import largest_task_share
from .bench_workloads import Shape, Workload


def _timed(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _unmeasured_above_cache(plan: str) -> List[str]:
    """Exchange/Sort operators of `plan` outside the cached input's own plan."""
    top = plan.split("InMemoryTableScan")[0]
    return [op for op in ("Exchange", "Sort [") if op in top]



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
        self.reference = reference_system(args.systems)
        #: The settings the operator report is read with: the reference system's.
        self.reported = next((s for s in SPARK_SYSTEMS if s.name == self.reference))

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
                self._wait_for_cancelled_tasks()
                raise TimeLimitExceeded() from exc
            raise
        finally:
            timer.cancel()

    def _wait_for_cancelled_tasks(self) -> None:
        """Waits until the cancelled jobs' tasks have stopped: a native operator (Comet's) may
        finish its work before it sees the kill, and its tasks would hold the slots the next runs
        are timed on. Gives up after ten times --max-seconds."""
        tracker = self.spark.sparkContext.statusTracker()
        deadline = time.perf_counter() + 10 * self.args.max_seconds
        while tracker.getActiveStageIds() and time.perf_counter() < deadline:
            time.sleep(1)
        if tracker.getActiveStageIds():
            print("note: cancelled tasks still running; later times share their slots", flush=True)

    def run_shape(self, shape: Shape, rows: int, workloads: Sequence[Workload]) -> None:
        # The name says which generator wrote it (v2: with the string column s).
        data = Path(self.args.out) / "data" / f"{shape.name}_{rows}_v2.parquet"
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
                        message = (str(exc) or repr(exc)).splitlines()[0][:200]
                        case = Case(shape.name, workload.name, workload.group,
                                    workload.window_size, rows, mode, operator="error",
                                    results_agree=False,
                                    disagreement=f"failed: {message}")
                        print(_case_line(case), flush=True)
                        self.cases.append(case)
        finally:
            for prepared in cached.values():
                prepared.unpersist()

    def _run_case(self, shape: Shape, rows: int, workload: Workload, mode: str,
                  table: str) -> Case:
        case = Case(shape.name, workload.name, workload.group, workload.window_size, rows, mode,
                    reference=self.reference)
        sql = query_sql(workload, shape, table)
        columns = [f"r{k}" for k in range(len(workload.expressions))]

        _set(self.spark, self.reported.confs)
        df = self.spark.sql(sql)
        reports = explain(df)
        case.operator = "+".join(sorted({r.operator for r in reports})) or "none"
        plan = df._jdf.queryExecution().executedPlan().toString()
        float_columns = [c for c in columns
                         if df.schema[c].dataType.typeName() in ("double", "float")]
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
        # (No checksum when every system was cancelled: nothing to compare.)
        reference = sums.get("spark") or next(iter(sums.values()), None)
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
                if name == self.reference and mode == "end-to-end":
                    # (the time includes reading the task metrics: only the budget checks it)
                    start = time.perf_counter()
                    case.largest_task_share = largest_task_share(self.spark, action)
                    first = time.perf_counter() - start
                else:
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
        _set(self.spark, self.reported.confs)
        print(_case_line(case), flush=True)
        return case
