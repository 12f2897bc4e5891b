"""README.md must tell the truth about the code: its generated tables match what the jar reports,
and the test command it gives is the one CI runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fastwindow.cli import format_markdown_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def readme_section(name: str) -> str:
    match = re.search(rf"<!-- {name}:start -->\n(.*?)<!-- {name}:end -->", README, re.S)
    assert match, f"README.md has no <!-- {name}:start/end --> section"
    return match.group(1).strip()


def api(spark_session):
    return spark_session.sparkContext._jvm.fastwindow.FastWindow


def test_support_table_matches_the_code(spark_session):
    generated = format_markdown_table(json.loads(str(api(spark_session).supportJson())))
    assert readme_section("support-table") == generated.strip(), (
        "README's support table is stale: regenerate it with "
        "`python -m fastwindow support --markdown`")


def test_config_table_matches_the_code(spark_session):
    generated = str(api(spark_session).configMarkdown())
    assert readme_section("config-table") == generated.strip(), (
        "README's config table is stale: regenerate it with `python -m fastwindow config --markdown`")


def test_ci_runs_the_readme_test_command():
    assert "bash .ci/test\n" in README
    ci_run = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^exec bash \.ci/test\b", ci_run, re.M), ".ci/run must run the README's test command"


def test_support_matrix_matches_the_build():
    import line_suite

    assert readme_section("support-matrix") == line_suite.support_matrix(), (
        "README's support matrix is stale: regenerate it with `python tests/line_suite.py "
        "--markdown`")


def test_explain_sample_is_what_explain_prints(spark_session):
    """The "Did my query use it?" sample: its query, run over a table of its columns, prints
    exactly the report the README shows (a fallback fastwindow still has)."""
    import fastwindow

    query = re.search(r'df = spark\.sql\("(.*?)"\)', README.split("## Did my query use it?")[1])
    assert query, "the README's explain sample has no spark.sql(...) query"
    spark = spark_session.newSession()  # its own temporary views: other tests have their `t`
    spark.sql("create or replace temporary view t as "
              "select id % 3 as p, id, array(id % 5) as arr from range(10)")
    printed = "\n".join(str(r) for r in fastwindow.explain(spark.sql(query.group(1))))
    shown = readme_section("explain-sample").strip().strip("`").strip()
    assert printed == shown, f"README's explain sample is stale; fastwindow prints:\n{printed}"


def test_shell_blocks_continue_their_lines():
    """A line ending in a backslash continues the command; a comment after that backslash ends
    the command there when the block is pasted into a shell (and the next line runs alone)."""
    for block in re.findall(r"```bash\n(.*?)```", README, re.S):
        for line in block.splitlines():
            assert not re.search(r"\\\s+#", line), f"a comment after a continuation: {line}"
