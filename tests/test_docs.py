"""The documentation (README.md and the MkDocs site in docs/) must tell the truth about the code:
its generated tables match what the jar reports, the test command it gives is the one CI runs, its
code blocks paste and compile, and the site builds with every link and anchor resolved."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

from fastwindow.cli import format_markdown_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
#: README.md and every page of the site, by their path relative to the repository root.
DOC_FILES = {"README.md": README} | {
    f"docs/{page.name}": page.read_text() for page in sorted((ROOT / "docs").glob("*.md"))}


def doc_section(name: str) -> str:
    """The text between `<!-- name:start -->` and `<!-- name:end -->`, which exists exactly once
    across README.md and docs/*.md."""
    found = [(path, match.group(1).strip()) for path, text in DOC_FILES.items()
             for match in re.finditer(rf"<!-- {name}:start -->\n(.*?)<!-- {name}:end -->", text, re.S)]
    assert found, f"no <!-- {name}:start/end --> section in README.md or docs/*.md"
    assert len(found) == 1, (
        f"<!-- {name}:start/end --> must appear once, found in: {', '.join(p for p, _ in found)}")
    return found[0][1]


def doc_file(name: str) -> str:
    """The file that holds the `name` section (for error messages)."""
    return next(path for path, text in DOC_FILES.items() if f"<!-- {name}:start -->" in text)


def api(spark_session):
    return spark_session.sparkContext._jvm.fastwindow.FastWindow


def test_support_table_matches_the_code(spark_session):
    generated = format_markdown_table(json.loads(str(api(spark_session).supportJson())))
    assert doc_section("support-table") == generated.strip(), (
        f"the support table in {doc_file('support-table')} is stale: regenerate it with "
        "`python -m fastwindow support --markdown`")


def test_config_table_matches_the_code(spark_session):
    generated = str(api(spark_session).configMarkdown())
    assert doc_section("config-table") == generated.strip(), (
        f"the config table in {doc_file('config-table')} is stale: regenerate it with "
        "`python -m fastwindow config --markdown`")


def test_ci_runs_the_readme_test_command():
    assert "bash .ci/test\n" in README
    ci_run = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^exec bash \.ci/test\b", ci_run, re.M), ".ci/run must run the README's test command"


def test_support_matrix_matches_the_build():
    import line_suite

    assert doc_section("support-matrix") == line_suite.support_matrix(), (
        f"the support matrix in {doc_file('support-matrix')} is stale: regenerate it with "
        "`python tests/line_suite.py --markdown`")


def test_explain_sample_is_what_explain_prints(spark_session):
    """The "Did my query use it?" sample: its query, run over a table of its columns, prints
    exactly the report the README shows (a fallback fastwindow still has); the user guide shows
    the same query and report."""
    import fastwindow

    query = re.search(r'df = spark\.sql\("(.*?)"\)', README.split("## Did my query use it?")[1])
    assert query, "the README's explain sample has no spark.sql(...) query"
    spark = spark_session.newSession()  # its own temporary views: other tests have their `t`
    spark.sql("create or replace temporary view t as "
              "select id % 3 as p, id, array(id % 5) as arr from range(10)")
    printed = "\n".join(str(r) for r in fastwindow.explain(spark.sql(query.group(1))))
    shown = doc_section("explain-sample").strip().strip("`").strip()
    assert printed == shown, (
        f"the explain sample in {doc_file('explain-sample')} is stale; fastwindow prints:\n{printed}")
    guide = DOC_FILES["docs/user-guide.md"].split("## Did my query use it?")[1]
    assert query.group(0) in guide and f"```\n{printed}\n```" in guide, (
        "docs/user-guide.md's \"Did my query use it?\" must show the README's query and the report "
        f"fastwindow prints for it:\n{printed}")


def test_shell_blocks_continue_their_lines():
    """A line ending in a backslash continues the command; a comment after that backslash ends
    the command there when the block is pasted into a shell (and the next line runs alone)."""
    for path, text in DOC_FILES.items():
        for block in re.findall(r"```bash\n(.*?)```", text, re.S):
            for line in block.splitlines():
                assert not re.search(r"\\\s+#", line), f"{path}: a comment after a continuation: {line}"


def test_python_blocks_compile():
    """Every ```python block is Python (a block that is not should not be fenced as python)."""
    blocks = 0
    for path, text in DOC_FILES.items():
        for number, block in enumerate(re.findall(r"```python\n(.*?)```", text, re.S), 1):
            compile(block, f"{path}, python block {number}", "exec")
            blocks += 1
    assert blocks, "no ```python block found in README.md or docs/*.md"


def test_docs_site_builds(tmp_path):
    """`mkdocs build --strict` succeeds: every page in the nav, every link to a page and every
    anchor resolves (mkdocs.yml makes each of these a warning, which --strict makes an error)."""
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        raise AssertionError("mkdocs is not installed: `pip install mkdocs` (.ci/setup installs it)") from None
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, (
        f"mkdocs build --strict failed (exit {build.returncode}):\n{build.stdout}\n{build.stderr}")


def _anchor(heading: str) -> str:
    """A heading's anchor, as MkDocs (Python-Markdown's toc) and GitHub make it for these docs."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode()
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip().lower())


def test_readme_links_resolve():
    """README.md's relative links (into docs/, mostly) reach a file, and their #anchors a heading
    of it: mkdocs checks the site's own links, not the README's."""
    for target in re.findall(r"\]\(([^)\s]+)\)", README):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = ROOT / path if path else ROOT / "README.md"
        assert file.exists(), f"README.md links to {target}, which does not exist"
        if anchor:
            headings = re.findall(r"^#+ (.+?)\s*$", file.read_text(), re.M)
            assert anchor in {_anchor(h) for h in headings}, (
                f"README.md links to {target}, but {file.relative_to(ROOT)} has no heading with "
                f"the anchor #{anchor}")


def test_code_map_names_every_package_and_family():
    """docs/how-it-works.md's map of the code names every package under scala-src/main (its last
    folder, or the whole path for org/apache/spark/sql/fastwindow) and every function family."""
    text = (ROOT / "docs" / "how-it-works.md").read_text()
    code_map = text.split("```")[1]
    sources = ROOT / "scala-src" / "main" / "scala"
    packages = {p.parent.relative_to(sources).as_posix() for p in sources.rglob("*.scala")}
    def named(package):
        return package if package.startswith("org/") else package.split("/")[-1]
    missing = [p for p in sorted(packages)
               if not re.search(rf"(^|[\s/]){re.escape(named(p))}/", code_map)]
    families = [p.stem for p in (sources / "fastwindow" / "functions").glob("*Family.scala")
                if p.stem != "FunctionFamily"]
    missing += [f for f in sorted(families) if f not in code_map]
    assert not missing, f"docs/how-it-works.md's map of the code does not name: {missing}"
