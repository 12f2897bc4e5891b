"""The benchmark suite runs end to end at a tiny size (a smoke test: no timing assertions)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_quick_bench_writes_agreeing_results(tmp_path):
    out = tmp_path / "bench"
    cmd = [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--rows", "3000",
           "--repeat", "1", "--driver-memory", "1g", "--out", str(out),
           "--workloads", "row_number,moving_sum_w10,shrinking_sum,whole_avg_max"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = json.loads((out / "results.json").read_text())
    cases = results["cases"]
    assert [c["workload"] for c in cases] == [
        "row_number", "moving_sum_w10", "shrinking_sum", "whole_avg_max"]
    assert all(c["results_agree"] for c in cases), cases
    assert all(c["operator"] == "FastWindow" for c in cases)
    assert {"fastwindow", "spark"} <= set(cases[0]["systems"])
    assert results["machine"]["cores"] and results["machine"]["spark"]
    assert "| small | window-only | row_number | FastWindow |" in (out / "results.md").read_text()
    assert (out / "speedup.png").stat().st_size > 0


def test_shuffle_only_reads_the_query_columns_and_shuffles_by_its_key():
    from fastwindow import bench
    workloads = {w.name: w for w in bench.WORKLOADS}
    keyed, single = bench.SHAPES["keys20"], bench.SHAPES["none"]
    assert bench.shuffle_only_sql(workloads["share_by_name"], keyed, "t") == \
        "SELECT p, o, v FROM t DISTRIBUTE BY cast(p AS string)"
    assert bench.shuffle_only_sql(workloads["range_interval"], keyed, "t") == \
        "SELECT p, o, ts FROM t DISTRIBUTE BY p"
    assert bench.shuffle_only_sql(workloads["mixed"], keyed, "t") == \
        "SELECT p, o, x, d FROM t DISTRIBUTE BY p"
    # A top-k's partial limit runs before the shuffle; no PARTITION BY: no key to shuffle by.
    assert bench.shuffle_only_sql(workloads["top3_rank"], keyed, "t") is None
    assert bench.shuffle_only_sql(workloads["row_number"], single, "t") is None


def test_end_to_end_bench_reports_spark_ceiling_over_the_shuffle(tmp_path):
    out = tmp_path / "bench"
    cmd = [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--rows", "3000", "--repeat", "1",
           "--driver-memory", "1g", "--out", str(out), "--shapes", "keys20", "--modes",
           "end-to-end", "--workloads", "share_of_total,top3_rank",
           "--systems", "fastwindow,spark,shuffle_only"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    cases = {c["workload"]: c for c in json.loads((out / "results.json").read_text())["cases"]}
    assert cases["share_of_total"]["systems"]["shuffle_only"]["seconds"]
    assert "shuffle_only" not in cases["top3_rank"]["systems"]
    assert all(c["results_agree"] for c in cases.values()), cases
    assert "ceiling" in done.stdout and "ceiling (spark / shuffle only)" in \
        (out / "results.md").read_text()
    # How the window stage's rows spread over its tasks (one task takes all of them at this size);
    # the share of the total reads no shuffle at all: its rows stay where they are
    # (spark.fastwindow.keyAggregates.enabled), and the bench says nothing of its tasks.
    assert 0 < cases["top3_rank"]["largest_task_share"] <= 1
    assert cases["share_of_total"]["largest_task_share"] is None
    assert "largest task" in done.stdout
