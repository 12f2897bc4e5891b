"""How evenly a query spread its rows over tasks: the largest task's share of the rows its window
stage read from the shuffle. A window without PARTITION BY, or a key that holds most rows, gives
one task all or most of them, whatever the cluster's size."""

from __future__ import annotations

import uuid
from typing import Any, Callable, Optional


def largest_task_share(spark: Any, action: Callable[[], Any]) -> Optional[float]:
    """Runs ``action`` and returns, for the stage of its jobs that read the most rows from a
    shuffle (the window's), the largest task's share of them; None if no stage read a shuffle."""
    sc = spark.sparkContext
    group = f"fastwindow-bench-{uuid.uuid4().hex}"
    sc.setJobGroup(group, "fastwindow bench: rows per task")
    try:
        action()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
    jvm_context = sc._jsc.sc()
    jvm_context.listenerBus().waitUntilEmpty()   # the status store is fed by the listener bus
    store = jvm_context.statusStore()
    tracker = sc.statusTracker()
    best: Optional[tuple] = None                 # (rows read, largest task's rows)
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in (info.stageIds if info else []):
            rows = _shuffle_rows_per_task(store, stage)
            if rows and sum(rows) and (best is None or sum(rows) > best[0]):
                best = (sum(rows), max(rows))
    return best[1] / best[0] if best else None


def _shuffle_rows_per_task(store: Any, stage: int) -> list:
    tasks = store.taskList(stage, 0, 1 << 20)
    rows = []
    for k in range(tasks.size()):
        metrics = tasks.apply(k).taskMetrics()
        if metrics.isDefined():
            rows.append(metrics.get().shuffleReadMetrics().recordsRead())
    return rows
