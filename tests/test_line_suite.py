"""fastwindow on every other Spark line it supports, from one wheel (see tests/line_suite.py).

The main suite runs on the installed Spark (4.3); this builds the release wheel (one jar per
line), installs it next to each other line's newest pyspark in a virtual environment of its own,
and runs the line's suite there (tests/line_suite.py LINES: every aggregate family over every
frame kind, random queries, fallbacks, and what the line's own shims serve; the generated
evaluator; real deployments and the interpreted twin run on the installed line). Spark 3.5 built
for Scala 2.13 runs PyPI's pyspark 3.5 (a Scala 2.12 build) on Spark 3.5's Scala 2.13 jars from
Maven Central.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import line_suite


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The release wheel, built once. FASTWINDOW_TEST_WHEEL_DIR names a folder that one run
    builds it into and the runs of other lines (side by side, .ci/parts.py) take it from."""
    shared = os.environ.get("FASTWINDOW_TEST_WHEEL_DIR")
    if shared:
        built = sorted(Path(shared).glob("fastwindow-*.whl"))
        return built[-1] if built else line_suite.build_wheel(Path(shared))
    return line_suite.build_wheel(tmp_path_factory.mktemp("dist"))


def test_the_wheel_carries_a_jar_per_line(wheel):
    import zipfile

    with zipfile.ZipFile(wheel) as zf:
        jars = sorted(n.rsplit("/", 1)[-1] for n in zf.namelist() if n.endswith(".jar"))
    lines = {j.split("-")[1] for j in jars}  # "spark4.2_2.13"
    assert lines == {"spark3.5_2.12", "spark3.5_2.13", "spark4.0_2.13", "spark4.1_2.13",
                     "spark4.2_2.13", "spark4.3_2.13"}, jars


def test_the_release_artifacts_pass_twine_check(wheel):
    """The wheel and the sdist it was built from are what an index accepts."""
    import subprocess
    import sys

    sdists = sorted(wheel.parent.glob("fastwindow-*.tar.gz"))
    assert sdists, f"no sdist next to {wheel}"
    out = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(wheel),
                          str(sdists[-1])], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_every_listed_test_exists():
    """Each file and test a line's suite names is there: a test moved to another file would
    otherwise collect nothing on that line alone."""
    for line, spec in line_suite.LINES.items():
        for entry in spec["suite"]:
            name, _, test = entry.partition("::")
            path = line_suite.TESTS / name
            assert path.is_file(), f"{line}: {entry}"
            assert not test or f"def {test}(" in path.read_text(), f"{line}: {entry}"


@pytest.mark.parametrize("line", list(line_suite.LINES))
def test_line(line, wheel, tmp_path):
    (result,) = line_suite.run([line], wheel, work_dir=tmp_path)
    assert result["ok"], (
        f"Spark {line}: {result.get('summary') or result.get('error')}\n"
        + "\n".join(result.get("failures", [])) + "\n" + result.get("output_tail", ""))
    if line_suite.LINES[line].get("comet"):
        # Its tests skip without Comet in the session: none may have.
        assert "passed" in result["summary"] and "skipped" not in result["summary"], result
