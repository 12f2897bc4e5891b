"""Runs fastwindow's tests on every other Spark line it supports, from one wheel.

    python tests/line_suite.py [--lines 3.5,4.0,4.1,4.2] [--wheel WHEEL] [-- pytest args]

1. builds the wheel the way a release is built (``pip wheel .``: one jar per Spark line), unless
   one is given;
2. for each line, a virtual environment with that line's newest pyspark from PyPI (kept in
   ``~/.cache/fastwindow/venvs`` between runs) and the wheel installed into it, so the tests use
   the installed package and its bundled jar, not the checkout;
3. runs LINE_SUITE there (every function family over every frame kind, ANSI off and on, both
   evaluators, the random query generator, the three entry routes, a local-cluster and a Spark
   Connect server), one line after the other (one JVM at a time on a 2-core machine).

The installed Spark (4.3) runs the whole suite in the main environment; this covers the others.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"

#: Spark line -> (pip requirement of its pyspark, Scala of that pyspark). The newest release of
#: each line on PyPI; pandas < 3 where that pyspark predates pandas 3.
LINES: Dict[str, Dict[str, str]] = {
    "3.5": {"pyspark": "pyspark==3.5.*", "scala": "2.12", "extra": "pandas<3"},
    "4.0": {"pyspark": "pyspark[connect]==4.0.*", "scala": "2.13", "extra": "pandas<3"},
    "4.1": {"pyspark": "pyspark[connect]==4.1.*", "scala": "2.13", "extra": "pandas"},
    "4.2": {"pyspark": "pyspark[connect]==4.2.*", "scala": "2.13", "extra": "pandas"},
}

#: What runs on each line: every function family x frame kind x ANSI on/off (on the generated
#: evaluator; the interpreted twin runs the same Scala algorithms and is covered on the installed
#: line), random queries, fallbacks and explain, and the three entry routes. The local-cluster
#: and Spark Connect tests run on the installed line (tests/test_deployments.py).
LINE_SUITE = [
    "test_ranking.py", "test_offset.py", "test_aggregates.py", "test_sliding_frames.py",
    "test_range_frames.py", "test_moments_and_bits.py", "test_edge_inputs.py",
    "test_random_queries.py", "test_fallback.py", "test_entry_routes.py",
]
LINE_ENV = {"FASTWINDOW_TEST_CODEGEN_MODES": "CODEGEN_ONLY", "FASTWINDOW_RANDOM_QUERIES": "48"}


def support_matrix() -> str:
    """README's support matrix: the lines the build compiles (scala-src/shims/spark-lines.tsv)
    and what CI runs each on (LINES here; the installed pyspark for the line of .ci/setup)."""
    sys.path.insert(0, str(REPO / "python" / "_build_backend"))
    from spark_lines import read_lines  # the build's own table

    import pyspark

    installed = ".".join(pyspark.__version__.split(".")[:2])
    rows = ["| Spark line | Scala | jar compiled against | tested in CI on | Java | Python |",
            "|---|---|---|---|---|---|"]
    for line in read_lines():
        compiled = f"Spark {line.maven} (Maven Central)" if line.maven else "the installed pyspark"
        if line.line == installed:
            tested = f"pyspark {installed}.x: the whole suite"
        elif line.line in LINES and LINES[line.line]["scala"] == line.scala:
            tested = f"pyspark {line.line}.x from PyPI: the line suite"
        else:
            tested = "compiled only (PyPI's pyspark of this line is built for another Scala)"
        rows.append(f"| {line.line} | {line.scala} | {compiled} | {tested} | 17 | 3.9+ |")
    return "\n".join(rows)


def cache_dir() -> Path:
    base = os.environ.get("FASTWINDOW_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "fastwindow")
    return Path(base)


def log(msg: str) -> None:
    print(f"[line_suite] {msg}", file=sys.stderr, flush=True)


def build_wheel(out_dir: Path) -> Path:
    """``pip wheel .``: the release build, with a jar for every Spark line."""
    env = dict(os.environ, FASTWINDOW_SPARK_LINES="all")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                    "-w", str(out_dir), str(REPO)], check=True, env=env)
    wheels = sorted(out_dir.glob("fastwindow-*.whl"))
    if not wheels:
        raise SystemExit(f"pip wheel wrote no fastwindow wheel into {out_dir}")
    return wheels[-1]


def line_venv(line: str, wheel: Path) -> Path:
    """A venv with the line's pyspark, the test tools and the wheel; returns its python."""
    spec = LINES[line]
    venv = cache_dir() / "venvs" / f"spark-{line}_{spec['scala']}"
    python = venv / "bin" / "python"
    if not python.exists():
        log(f"creating {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run(pip + [spec["pyspark"], "pytest", "chispa", "pyarrow", spec["extra"]],
                   check=True)
    subprocess.run(pip + ["--force-reinstall", "--no-deps", str(wheel)], check=True)
    return python


def run_line(line: str, wheel: Path, pytest_args: List[str], report_dir: Path) -> dict:
    python = line_venv(line, wheel)
    report = report_dir / f"spark-{line}.json"
    env = dict(os.environ)
    # The tests' helpers, but the package from the wheel (not python/ of the checkout).
    env["PYTHONPATH"] = str(TESTS)
    env.pop("SPARK_HOME", None)
    env.update(LINE_ENV)
    probe = subprocess.run(
        [str(python), "-c", "import fastwindow, pyspark; print(pyspark.__version__, "
         "fastwindow.__file__, fastwindow.jar_path())"],
        env=env, capture_output=True, text=True, cwd=str(report_dir))
    if probe.returncode != 0:
        return {"line": line, "ok": False, "error": probe.stderr[-4000:]}
    pyspark_version, package, jar = probe.stdout.split()
    if str(REPO / "python") in package:
        return {"line": line, "ok": False, "error": f"fastwindow came from the checkout: {package}"}
    log(f"Spark {pyspark_version}: {jar}")
    start = time.monotonic()
    proc = subprocess.run(
        [str(python), "-m", "pytest", *[str(TESTS / t) for t in LINE_SUITE], "-q",
         "-p", "no:cacheprovider", "-rfE", f"--junitxml={report.with_suffix('.xml')}",
         *pytest_args],
        env=env, cwd=str(report_dir), capture_output=True, text=True)
    summary = (proc.stdout.strip().splitlines() or ["(no output)"])[-1]
    return {"line": line, "spark": pyspark_version, "jar": os.path.basename(jar),
            "ok": proc.returncode == 0, "summary": summary,
            "seconds": round(time.monotonic() - start),
            "failures": [ln for ln in proc.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))],
            "output_tail": proc.stdout[-6000:] if proc.returncode else ""}


def run(lines: List[str], wheel: Optional[Path] = None, pytest_args: Optional[List[str]] = None,
        work_dir: Optional[Path] = None) -> List[dict]:
    work = Path(work_dir or tempfile.mkdtemp(prefix="fastwindow-lines-"))
    if wheel is None:
        log("building the wheel (every Spark line)")
        wheel = build_wheel(work / "dist")
    results = []
    for line in lines:
        log(f"Spark {line}: setting up and running {len(LINE_SUITE)} test files")
        result = run_line(line, wheel, pytest_args or [], work)
        log(f"Spark {line}: {result.get('summary', result.get('error'))}")
        results.append(result)
    return results


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", default=",".join(LINES),
                        help=f"comma-separated Spark lines (default: {','.join(LINES)})")
    parser.add_argument("--wheel", type=Path, help="a built fastwindow wheel to test")
    parser.add_argument("--markdown", action="store_true",
                        help="print README's support matrix and exit")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    if args.markdown:
        print(support_matrix())
        return 0
    lines = [line.strip() for line in args.lines.split(",") if line.strip()]
    unknown = [line for line in lines if line not in LINES]
    if unknown:
        parser.error(f"unknown Spark line(s) {unknown}; known: {', '.join(LINES)}")
    results = run(lines, args.wheel, args.pytest_args)
    print(json.dumps(results, indent=2))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
