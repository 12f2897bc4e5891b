"""Unit tests of fastwindow's command line (``python -m fastwindow``): jar, --version, config,
help, bench and demo dispatch; ``config --markdown``, ``support`` and ``demo`` start a JVM in a
subprocess.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import fastwindow
from fastwindow import _jar, cli
from python_api_fakes import _minor

# Another test module may already run a SparkContext in this process; configure() then warns
# that static confs will not apply. That is expected here (no session is started from them).
pytestmark = pytest.mark.filterwarnings(
    r"ignore:fastwindow\.configure\(\). a SparkContext is already running:RuntimeWarning")


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def test_cli_jar(capsys):
    assert cli.main(["jar"]) == 0
    assert capsys.readouterr().out.strip() == fastwindow.jar_path()


def test_cli_version(capsys):
    assert cli.main(["--version"]) == 0
    out = capsys.readouterr().out
    assert f"fastwindow {fastwindow.__version__}" in out
    assert f"Spark {_minor(fastwindow.built_for_spark())} (Scala 2.13, built against " \
        f"{fastwindow.built_for_spark()})" in out


def test_cli_config(capsys):
    assert cli.main(["config"]) == 0
    out = capsys.readouterr().out
    jar = fastwindow.jar_path()
    assert re.search(r"^spark\.jars\s+" + re.escape(jar) + "$", out, re.MULTILINE)
    assert re.search(r"^spark\.sql\.extensions\s+fastwindow\.FastWindowExtensions$", out,
                     re.MULTILINE)
    assert f"--jars {jar}" in out
    assert "--conf spark.sql.extensions=fastwindow.FastWindowExtensions" in out
    assert "fastwindow.configure(SparkSession.builder)" in out


def test_cli_without_command_prints_help(capsys):
    assert cli.main([]) == 2
    out = capsys.readouterr().out
    for command in ("jar", "config", "support", "demo", "bench"):
        assert command in out


def test_cli_bench_lists_workloads(capsys):
    # The suite itself runs in tests/test_bench_smoke.py; this checks the CLI dispatch only.
    assert cli.main(["bench", "--list"]) == 0
    out = capsys.readouterr().out
    assert "moving_sum_w1000" in out and "shape small" in out


def test_cli_reports_missing_jar(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(_jar, "JARS_DIR", tmp_path)
    assert cli.main(["jar"]) == 1
    assert "pip install" in capsys.readouterr().err


def test_python_dash_m_fastwindow():
    run = lambda *a: subprocess.run([sys.executable, "-m", "fastwindow", *a],  # noqa: E731
                                    capture_output=True, text=True, timeout=120)
    out = run("jar")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == fastwindow.jar_path()
    out = run("--version")
    assert out.returncode == 0 and fastwindow.__version__ in out.stdout


def test_cli_config_markdown_and_support_from_the_jvm():
    code = (
        "import contextlib, io, json, fastwindow.cli as c\n"
        "res = {}\n"
        "for name, argv in (('md', ['config', '--markdown']), ('support', ['support', '--json'])):\n"
        "    buf = io.StringIO()\n"
        "    with contextlib.redirect_stdout(buf):\n"
        "        rc = c.main(argv)\n"
        "    res[name] = [rc, buf.getvalue()]\n"
        "print('FWRESULT ' + json.dumps(res))\n"
    )
    # One subprocess (one JVM); each command starts and stops its own local session.
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("FWRESULT ")]
    assert proc.returncode == 0 and lines, proc.stdout[-3000:] + proc.stderr[-5000:]
    res = json.loads(lines[-1][len("FWRESULT "):])
    rc, md = res["md"]
    assert rc == 0
    assert "| `spark.fastwindow.enabled` |" in md
    rc, support = res["support"]
    assert rc == 0
    data = json.loads(support)
    assert isinstance(data, (list, dict)) and data


def test_cli_demo_small_run():
    proc = subprocess.run(
        [sys.executable, "-m", "fastwindow", "demo", "--rows", "20000", "--repeat", "1",
         "--warmup", "0", "--master", "local[1]", "--driver-memory", "1g"],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    out = proc.stdout
    assert "physical plan with fastwindow on:" in out
    assert "window operators (fastwindow.explain):" in out
    assert re.search(r"fastwindow on : \d+\.\d+ s", out)
    assert re.search(r"speedup\s+: \d+\.\d+x", out)
    assert "results: identical (checksum of all 20,000 rows x every column and sorted rows)" in out


def test_format_table_renders_lists_of_objects():
    text = cli.format_table([
        {"function": "sum", "frames": ["ROWS", "RANGE"], "codegen": True},
        {"function": "row_number", "frames": ["ROWS"]},
    ])
    lines = text.splitlines()
    assert lines[0].split() == ["function", "frames", "codegen"]
    assert lines[2].split() == ["sum", "ROWS", "yes"]  # one list element per line
    assert lines[3].split() == ["RANGE"]
    assert lines[4].split() == ["row_number", "ROWS"]
