"""The benchmark suite runs end to end at a tiny size (a smoke test: no timing assertions)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
    # A top-k's partial limit runs before the shuffle: the columns read alone (every column where
    # the query selects them all); OVER (): no key to shuffle by.
    assert bench.shuffle_only_sql(workloads["top3_rank"], keyed, "t") == "SELECT p, o FROM t"
    assert bench.shuffle_only_sql(workloads["dedup_latest"], keyed, "t") == "SELECT * FROM t"
    assert bench.shuffle_only_sql(workloads["whole_avg_max"], single, "t") is None
    # No PARTITION BY: the rows shuffled into ranges of the window's ORDER BY, not sorted (the
    # sort is the window operator's part).
    assert bench.shuffle_only_sql(workloads["row_number"], single, "t") == \
        "SELECT /*+ REPARTITION_BY_RANGE(o) */ p, o FROM t"


def test_bench_times_both_modes_and_writes_agreeing_results(tmp_path):
    """One bench process (each costs a Spark session and its first compiles): both timings, the
    shuffle_only reference and its ceiling, the outputs."""
    out = tmp_path / "bench"
    workloads = ["row_number", "shrinking_sum", "share_of_total", "top3_rank"]
    cmd = [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--rows", "3000",
           "--repeat", "1", "--driver-memory", "1g", "--out", str(out), "--shapes", "keys20",
           "--modes", "window-only,end-to-end", "--workloads", ",".join(workloads),
           "--systems", "fastwindow,spark,shuffle_only"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = json.loads((out / "results.json").read_text())
    cases = {(c["mode"], c["workload"]): c for c in results["cases"]}
    assert set(cases) == {(m, w) for m in ("window-only", "end-to-end") for w in workloads}
    assert all(c["results_agree"] for c in cases.values()), cases
    assert all("FastWindow" in c["operator"] for c in cases.values()), cases
    assert results["machine"]["cores"] and results["machine"]["spark"]
    assert (out / "speedup.png").stat().st_size > 0
    md = (out / "results.md").read_text()
    assert "| keys20 | window-only | row_number | FastWindow |" in md
    # The reference runs end to end only (for a top-k, the scan alone).
    assert cases[("end-to-end", "share_of_total")]["systems"]["shuffle_only"]["seconds"]
    assert cases[("end-to-end", "top3_rank")]["systems"]["shuffle_only"]["seconds"]
    assert "shuffle_only" not in cases[("window-only", "row_number")]["systems"]
    assert "ceiling" in done.stdout and "ceiling (spark / shuffle only)" in md
    # How the window stage's rows spread over its tasks (one task takes all of them at this size);
    # the share of the total reads no shuffle at all: its rows stay where they are
    # (spark.fastwindow.keyAggregates.enabled), and the bench says nothing of its tasks.
    assert 0 < cases[("end-to-end", "top3_rank")]["largest_task_share"] <= 1
    assert cases[("end-to-end", "share_of_total")]["largest_task_share"] is None
    assert "largest task" in done.stdout


def test_regressions_name_each_case_slower_than_what_users_had():
    """The bench's guard: a case where fastwindow (or Comet with fastwindow) took over 5% longer
    than Spark (or Comet alone) is listed, with its shape, workload and ratio; the others not."""
    from fastwindow.bench_results import Case, SystemResult, markdown, regressions

    def case(workload, reference, baseline, ours, theirs):
        c = Case("keys20", workload, "g", None, 100, "end-to-end", operator="FastWindow",
                 reference=reference)
        c.systems = {reference: SystemResult(reference, [ours]),
                     baseline: SystemResult(baseline, [theirs])}
        return c

    cases = [case("row_number", "fastwindow", "spark", 1.0, 0.9),
             case("lag_lead", "fastwindow", "spark", 1.0, 0.96),
             case("share_of_total", "comet_fastwindow", "comet", 2.0, 1.0)]
    assert regressions(cases) == [
        "keys20 end-to-end row_number [FastWindow]: spark / fastwindow = 0.90x",
        "keys20 end-to-end share_of_total [FastWindow]: comet / comet_fastwindow = 0.50x"]
    info = {"cores": 2, "memory_bytes": 0, "spark": "x", "master": "local[2]", "java": "17",
            "python": "3", "load_average": None}
    assert "- keys20 end-to-end row_number [FastWindow]: spark / fastwindow = 0.90x" in \
        markdown(cases[:2], info, "cmd")
