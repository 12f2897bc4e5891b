"""A/B of two fastwindow jars on the benchmark suite, interleaved run by run.

    python benchmarks/ab.py --a old.jar --b new.jar --rounds 5 -- \
        --rows 1000000 --shapes small,large,none --workloads ranking,offset,running

Each round runs ``python -m fastwindow bench --systems fastwindow --repeat 1 --modes window-only``
(plus the arguments after ``--``) once with jar A and once with jar B, each in a fresh Python and
JVM, alternating which goes first, so slow spells of this shared machine hit both sides alike.
Both sides use this checkout's Python package and bench driver; only the jar differs, and every
run reads the input the first run generated (its data directory is shared). The script
prints, per case, the median seconds of each side over the rounds, min–max, and B's median / A's
(above 1.0 = B is slower), and writes the table and raw times to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Dict, List, Tuple

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "fastwindow"


def package_with(jar: Path, root: Path) -> Path:
    """A copy of this checkout's package under ``root`` whose only jar is ``jar``."""
    target = root / "fastwindow"
    shutil.copytree(PACKAGE, target, ignore=shutil.ignore_patterns("jars", "__pycache__"))
    (target / "jars").mkdir()
    shutil.copy(jar, target / "jars" / bundled_name(jar))
    return root


def bundled_name(jar: Path) -> str:
    """The name the package looks for, from the jar's own build properties."""
    with zipfile.ZipFile(jar) as z:
        props = dict(line.split("=", 1) for line in
                     z.read("fastwindow-build.properties").decode().splitlines() if "=" in line)
    minor = ".".join(props["spark.version"].split(".")[:2])
    return f"fastwindow-spark{minor}_{props['scala.binary.version']}-{props['version']}.jar"


def run_bench(pythonpath: Path, bench_args: List[str], out: Path,
              data: Path) -> Dict[Tuple[str, str], float]:
    # Every run reads the input the first one generated: out/data is `data`.
    out.mkdir(parents=True)
    (out / "data").symlink_to(data, target_is_directory=True)
    env = dict(os.environ, PYTHONPATH=f"{pythonpath}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    cmd = [sys.executable, "-m", "fastwindow", "bench", "--systems", "fastwindow", "--repeat", "1",
           "--modes", "window-only", "--out", str(out), *bench_args]
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    data = json.loads((out / "results.json").read_text())
    times = {}
    for case in data["cases"]:
        seconds = case["systems"]["fastwindow"]["seconds"]
        if seconds:
            times[(case["shape"], case["workload"])] = min(seconds)
    return times


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--a", type=Path, required=True, help="jar A (the baseline)")
    p.add_argument("--b", type=Path, required=True, help="jar B (the change)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--out", type=Path, default=Path("bench-results/ab"))
    p.add_argument("bench_args", nargs=argparse.REMAINDER,
                   help="after --: arguments for python -m fastwindow bench")
    args = p.parse_args()
    bench_args = [a for a in args.bench_args if a != "--"]
    args.out.mkdir(parents=True, exist_ok=True)
    runs: Dict[str, List[Dict[Tuple[str, str], float]]] = {"A": [], "B": []}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {side: package_with(jar.resolve(), Path(tmp) / side)
                 for side, jar in (("A", args.a), ("B", args.b))}
        data = Path(tmp) / "data"
        data.mkdir()
        for r in range(args.rounds):
            order = ("A", "B") if r % 2 == 0 else ("B", "A")
            for side in order:
                print(f"round {r + 1}/{args.rounds}: {side}", flush=True)
                runs[side].append(run_bench(paths[side], bench_args, Path(tmp) / f"{side}{r}",
                                            data))
    cases = sorted(set().union(*runs["A"], *runs["B"]))
    lines = [f"A: {args.a}  B: {args.b}  rounds: {args.rounds}  bench: {' '.join(bench_args)}",
             "", "| shape | workload | A s (min–max) | B s (min–max) | B / A |", "|---|---|---|---|---|"]
    raw = []
    for case in cases:
        a = [run[case] for run in runs["A"] if case in run]
        b = [run[case] for run in runs["B"] if case in run]
        if not a or not b:
            continue
        ma, mb = statistics.median(a), statistics.median(b)
        lines.append(f"| {case[0]} | {case[1]} | {ma:.3f} ({min(a):.3f}–{max(a):.3f}) | "
                     f"{mb:.3f} ({min(b):.3f}–{max(b):.3f}) | **{mb / ma:.3f}** |")
        raw.append({"shape": case[0], "workload": case[1], "a": a, "b": b})
    table = "\n".join(lines)
    print(table)
    (args.out / "ab.md").write_text(table + "\n")
    (args.out / "ab.json").write_text(json.dumps(raw, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
