"""Results of the benchmark: the timed runs of each case and what is made of them — the line
printed per case, the markdown table, the machine's description and the charts."""

from __future__ import annotations

import os
import platform
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from .bench_systems import OTHER_SYSTEMS, SHUFFLE_ONLY


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
    #: end to end: the largest task's share of the rows the window stage read (fastwindow's run)
    largest_task_share: Optional[float] = None
    #: the system the ratios are taken against (bench_systems.reference_system)
    reference: str = "fastwindow"


def _ratio(case: Case, other: str) -> Optional[float]:
    fast = case.systems.get(case.reference)
    slow = case.systems.get(other)
    if not fast or not slow or not fast.median or not slow.median:
        return None
    return slow.median / fast.median


#: What a user had without fastwindow, per reference system: the ratio to it must stay >= 0.95.
BASELINES = {"fastwindow": "spark", "comet_fastwindow": "comet"}
REGRESSION_BELOW = 0.95


def regressions(cases: Sequence[Case]) -> List[str]:
    """Every case where the reference (fastwindow, or Comet with fastwindow) was slower than what a
    user had without fastwindow (Spark, or Comet alone) by more than 5%: one line each."""
    found = []
    for c in cases:
        baseline = BASELINES.get(c.reference)
        ratio = _ratio(c, baseline) if baseline else None
        if ratio is not None and ratio < REGRESSION_BELOW:
            found.append(f"{c.shape} {c.mode} {c.workload} [{c.operator}]: {baseline} / "
                         f"{c.reference} = {ratio:.2f}x")
    return found


def _ceiling(case: Case) -> Optional[float]:
    """Spark's time over the shuffle alone: the most a window after the shuffle could gain."""
    spark, floor = case.systems.get("spark"), case.systems.get(SHUFFLE_ONLY)
    if not spark or not floor or not spark.median or not floor.median:
        return None
    return spark.median / floor.median


def _case_line(case: Case) -> str:
    times = "  ".join(f"{n} {r.median:.3f}s" for n, r in case.systems.items() if r.median)
    ratios = "  ".join(f"vs {o} {_ratio(case, o):.2f}x" for o in case.systems
                       if o not in (case.reference, SHUFFLE_ONLY) and _ratio(case, o))
    if _ceiling(case):
        ratios += f"  (ceiling {_ceiling(case):.2f}x)"
    ok = {True: "agree", None: "unchecked (one system finished)"}.get(
        case.results_agree, f"DIFFER ({case.disagreement})")
    tasks = (f"  | largest task {case.largest_task_share:.0%} of rows"
             if case.largest_task_share is not None else "")
    return (f"{case.shape:5s} {case.mode:11s} {case.workload:20s} [{case.operator}] "
            f"{times}  |  {ratios}  | results {ok}{tasks}")


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
    ref = cases[0].reference if cases else "fastwindow"
    others = [s for s in OTHER_SYSTEMS if s != ref and any(s in c.systems for c in cases)]
    floors = any(SHUFFLE_ONLY in c.systems for c in cases)
    lines = [
        f"Command: `{command}`  ",
        f"Machine: {info['cores']} cores, {round((info['memory_bytes'] or 0) / 2**30)} GiB, "
        f"Spark {info['spark']} ({info['master']}), Java {info['java']}, Python {info['python']}; "
        f"load average before {info['load_average']}, after {info.get('load_average_after')}",
        "",
        f"Median of the timed runs (min–max); ratio = other system's median / {ref}'s. "
        f"`ran on` is the operator Spark used in {ref}'s run (`Window` = fallback).",
        "",
        f"| shape | mode | workload | ran on | {ref} s | " +
        " | ".join(f"{o} s | {o} / {ref}" for o in others) +
        (" | shuffle only s | ceiling (spark / shuffle only)" if floors else "") + " | results |",
        "|" + "---|" * (5 + 2 * len(others) + (2 if floors else 0) + 1),
    ]
    for c in cases:
        row = [c.shape, c.mode, c.workload, c.operator, _fmt(c.systems.get(ref))]
        for o in others:
            r = _ratio(c, o)
            row += [_fmt(c.systems.get(o)), f"**{r:.2f}x**" if r else "–"]
        if floors:
            row += [_fmt(c.systems.get(SHUFFLE_ONLY)), f"{_ceiling(c):.2f}x" if _ceiling(c) else "–"]
        row.append({True: "agree", None: "unchecked (one system finished)"}.get(
            c.results_agree, f"DIFFER: {c.disagreement}"))
        lines.append("| " + " | ".join(row) + " |")
    slower = regressions(cases)
    if slower:
        lines += ["", f"Regressions (below {REGRESSION_BELOW}x what a user had without fastwindow):",
                  ""] + [f"- {r}" for r in slower]
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
    others = [s for s in OTHER_SYSTEMS
              if any(s in c.systems and s != c.reference for c in shown)]
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
                  "fastwindow_exact": "tab:purple", "fastwindow_spread": "tab:cyan", "fastwindow_skewed": "tab:olive",
                  "fastwindow_sorted": "tab:brown",
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
