"""The bench's estimate of a run on N task slots from measured task times
(``fastwindow.bench_tasks``): tasks start in launch order on the first free slot, stages run one
after the other, and the driver's time between stages is added as measured."""

from __future__ import annotations

from fastwindow.bench_tasks import RunTasks, StageTasks, makespan


def test_tasks_start_in_order_on_the_first_free_slot():
    assert makespan([5, 5, 5, 5], 2) == 10
    assert makespan([10, 1, 1], 2) == 10
    assert makespan([1, 1, 10], 2) == 11      # the long task starts last
    assert makespan([3, 4], 8) == 4           # more slots than tasks
    assert makespan([], 4) == 0


def test_a_run_on_slots_adds_its_stages_and_the_driver():
    scan = StageTasks(0, [100] * 8, [0] * 8, wall_ms=420)
    window = StageTasks(1, [50, 300, 50, 50], [10, 60, 10, 20], wall_ms=360)
    run = RunTasks(wall_ms=1000, stages=[scan, window])
    assert run.window_stage() is window
    assert run.largest_task_share() == 0.6
    assert run.on_slots(2) == 220 + 400 + 300   # driver 1000 - 780, scan 4 x 100, window
    assert run.on_slots(8) == 220 + 100 + 300
    assert RunTasks(10, [scan]).largest_task_share() is None
