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
