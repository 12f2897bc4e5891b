"""How a query's work spreads over tasks, from Spark's status store: the largest task's share of
the rows its window stage read from the shuffle (a window without PARTITION BY, or a key that
holds most rows, gives one task all or most of them, whatever the cluster's size), and the time
the query's stages would take on N task slots, scheduled from the task times measured here."""

from __future__ import annotations

import heapq
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Sequence


@dataclass(frozen=True)
class StageTasks:
    """One stage of a run: each task's time in ms (deserialization and run, in launch order),
    its rows read from a shuffle, and the stage's wall time from submission to completion."""

    stage: int
    task_ms: Sequence[int]
    shuffle_rows: Sequence[int]
    wall_ms: int


@dataclass(frozen=True)
class RunTasks:
    """The stages of one run of an action and its wall time."""

    wall_ms: int
    stages: Sequence[StageTasks]

    def window_stage(self) -> Optional[StageTasks]:
        """The stage that read the most rows from a shuffle (the window's), if any did."""
        read = [s for s in self.stages if sum(s.shuffle_rows)]
        return max(read, key=lambda s: sum(s.shuffle_rows)) if read else None

    def largest_task_share(self) -> Optional[float]:
        stage = self.window_stage()
        return max(stage.shuffle_rows) / sum(stage.shuffle_rows) if stage else None

    def on_slots(self, slots: int) -> float:
        """The run's time in ms on ``slots`` task slots: each stage's tasks scheduled in launch
        order on the first free slot, one stage after the other, plus the time no stage ran
        here (the driver's work between stages: planning, the ranges' seeds)."""
        driver = max(self.wall_ms - sum(s.wall_ms for s in self.stages), 0)
        return driver + sum(makespan(s.task_ms, slots) for s in self.stages)


def makespan(task_ms: Sequence[int], slots: int) -> int:
    """The time ``task_ms``, started in order each on the first free of ``slots``, take."""
    free = [0] * max(min(slots, len(task_ms)), 1)
    for ms in task_ms:
        heapq.heappush(free, heapq.heappop(free) + ms)
    return max(free)


def run_tasks(spark: Any, action: Callable[[], Any]) -> RunTasks:
    """Runs ``action`` and reads its jobs' stages from the status store."""
    sc = spark.sparkContext
    group = f"fastwindow-bench-{uuid.uuid4().hex}"
    sc.setJobGroup(group, "fastwindow bench: tasks")
    start = time.perf_counter()
    try:
        action()
    finally:
        wall_ms = int((time.perf_counter() - start) * 1000)
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
    jvm_context = sc._jsc.sc()
    jvm_context.listenerBus().waitUntilEmpty()   # the status store is fed by the listener bus
    store = jvm_context.statusStore()
    tracker = sc.statusTracker()
    stages = []
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in (info.stageIds if info else []):
            stages.extend(_stage_tasks(store, stage))
    return RunTasks(wall_ms, sorted(stages, key=lambda s: s.stage))


def largest_task_share(spark: Any, action: Callable[[], Any]) -> Optional[float]:
    """Runs ``action`` and returns, for the stage of its jobs that read the most rows from a
    shuffle (the window's), the largest task's share of them; None if no stage read a shuffle."""
    return run_tasks(spark, action).largest_task_share()


def _stage_tasks(store: Any, stage: int) -> List[StageTasks]:
    """The stage's last attempt that ran (a stage skipped for a reused shuffle ran none)."""
    data = store.lastStageAttempt(stage)
    if data.submissionTime().isEmpty() or data.completionTime().isEmpty():
        return []
    tasks = store.taskList(stage, data.attemptId(), 1 << 20)
    timed = []
    for k in range(tasks.size()):
        task = tasks.apply(k)
        metrics = task.taskMetrics()
        if metrics.isDefined():
            m = metrics.get()
            timed.append((task.launchTime().getTime(), m.executorDeserializeTime() +
                          m.executorRunTime(), m.shuffleReadMetrics().recordsRead()))
    timed.sort()
    wall = data.completionTime().get().getTime() - data.submissionTime().get().getTime()
    return [StageTasks(stage, [t[1] for t in timed], [t[2] for t in timed], wall)]
