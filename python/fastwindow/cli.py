"""Command line of fastwindow: ``python -m fastwindow <command>`` (or ``fastwindow <command>``).

Commands:

* ``--version``            fastwindow's version and the Spark version its jar targets;
* ``jar``                  the jar's path, for ``spark-submit --jars "$(python -m fastwindow jar)"``;
* ``config``               the confs for spark-defaults.conf / spark-submit / Python;
  ``config --markdown``    the table of every ``spark.fastwindow.*`` key (starts a local JVM);
* ``support``              what fastwindow runs: functions, frames, types (starts a local JVM);
* ``demo [...]``           a window workload timed with fastwindow on and off (``demo --help``);
* ``bench [...]``          benchmarks, from the ``fastwindow.bench`` module.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
import textwrap
from typing import Any, Dict, Iterable, List, Optional, Sequence

from ._errors import FastWindowError
from ._jar import build_info, bundled_jars, jar_path
from ._session import (
    ENABLED_KEY,
    EXPLAIN_GENERATOR_CLASS,
    EXTENSIONS_CLASS,
    configure,
    _api,
)
from ._version import __version__

__all__ = ["main"]

#: Commands whose remaining arguments belong to another module's own parser.
_PASSTHROUGH = ("demo", "bench")


def _prog() -> str:
    argv0 = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if argv0 in ("__main__.py", "-m", "-c", "") or argv0.startswith("python"):
        return "python -m fastwindow"
    return argv0 if argv0 else "python -m fastwindow"


def _version_text() -> str:
    jars = bundled_jars()
    if not jars:
        return f"fastwindow {__version__} (jars not built: run `pip install .` in the checkout)"
    lines = ", ".join(f"Spark {line} (Scala {scala}, built against "
                      f"{build_info(str(path)).get('spark.version', '?')})"
                      for (line, scala), path in sorted(
                          jars.items(), key=lambda kv: tuple(int(x) for x in kv[0][0].split("."))))
    return f"fastwindow {__version__} (jars for {lines})"


def _cmd_version() -> int:
    print(_version_text())
    try:
        jar_path()
    except FastWindowError as exc:
        print(f"warning: {exc}", file=sys.stderr)
    return 0


def _cmd_jar(spark: Optional[str], scala: Optional[str]) -> int:
    print(jar_path(spark=spark, scala=scala))
    return 0


def config_snippet(jar: str) -> str:
    """The text ``python -m fastwindow config`` prints."""
    has_explain = False
    try:
        from ._jar import has_class

        has_explain = has_class(EXPLAIN_GENERATOR_CLASS, jar)
    except FastWindowError:
        pass
    defaults = [("spark.jars", jar), ("spark.sql.extensions", EXTENSIONS_CLASS)]
    if has_explain:
        defaults.append(("spark.sql.extendedExplainProviders", EXPLAIN_GENERATOR_CLASS))
    width = max(len(k) for k, _ in defaults) + 2
    lines = [
        f"# {_version_text()}",
        "",
        "# spark-defaults.conf (also what a Spark Connect server needs)",
    ]
    lines += [f"{k.ljust(width)}{v}" for k, v in defaults]
    lines += [
        "",
        "# spark-submit / pyspark / spark-shell / start-connect-server.sh",
        "--jars " + jar + " \\",
    ]
    confs = [f"--conf {k}={v}" for k, v in defaults[1:]]
    lines += [c + " \\" for c in confs[:-1]] + [confs[-1]]
    lines += [
        "",
        "# Python: a new session ...",
        "import fastwindow",
        "spark = fastwindow.configure(SparkSession.builder).getOrCreate()",
        "# ... or a session that is already running",
        "fastwindow.enable(spark)",
        "",
        "# switch it per session (SQL: SET " + ENABLED_KEY + "=false)",
        f'spark.conf.set("{ENABLED_KEY}", "false")',
    ]
    return "\n".join(lines)


def _local_session() -> Any:
    """A minimal local SparkSession with the jar, for commands that ask the JVM."""
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master("local[1]").appName("fastwindow-cli")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false"))
    spark = configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _with_jvm(fn) -> int:
    spark = _local_session()
    try:
        api = _api(spark, add_jar=True)
        return fn(api)
    finally:
        spark.stop()


def _cmd_config(markdown: bool) -> int:
    if not markdown:
        print(config_snippet(jar_path()))
        return 0

    def show(api: Any) -> int:
        print(str(api.configMarkdown()))
        return 0

    return _with_jvm(show)


def _cmd_maven_repo(out_dir: str) -> int:
    from ._jar import bundled_jars
    from ._maven import write_bundled

    jars = bundled_jars()
    if not jars:
        jar_path()  # raises the error that says how to build the jars
    for coordinate in write_bundled(Path(out_dir), jars):
        print(coordinate)
    print(f"# a Maven repository in {Path(out_dir).resolve()}: "
          f"spark-submit --repositories file://{Path(out_dir).resolve()} --packages <one of the above>",
          file=sys.stderr)
    return 0


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={_cell(v)}" for k, v in value.items())
    return str(value)


def _cell_lines(value: Any, width: int) -> List[str]:
    """A cell as wrapped lines: one list element per line, long text wrapped at ``width``."""
    items = value if isinstance(value, (list, tuple)) else [value]
    lines: List[str] = []
    for item in items:
        lines += textwrap.wrap(_cell(item), width) or [""]
    return lines or [""]


def format_table(rows: Sequence[Any], max_width: int = 56) -> str:
    """Renders a JSON list (of objects, usually) as an aligned text table.

    List values get one line per element; long text is wrapped at ``max_width`` characters.
    """
    if not rows:
        return "(empty)"
    if not all(isinstance(r, dict) for r in rows):
        return "\n".join(_cell(r) for r in rows)
    columns: List[str] = []
    for r in rows:
        for k in r:
            if k not in columns:
                columns.append(k)
    cells = [[_cell_lines(r.get(c), max_width) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(ln) for row in cells for ln in row[i]])
              for i, c in enumerate(columns)]

    def line(values: Iterable[str]) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(values, widths)).rstrip()

    out = [line(columns), line("-" * w for w in widths)]
    for row in cells:
        height = max(len(c) for c in row)
        for i in range(height):
            out.append(line(c[i] if i < len(c) else "" for c in row))
    return "\n".join(out)


def _cmd_support(as_json: bool, markdown: bool = False) -> int:
    def show(api: Any) -> int:
        raw = str(api.supportJson())
        if as_json:
            print(raw)
            return 0
        data = json.loads(raw)
        if markdown:
            print(format_markdown_table(data))
            return 0
        if isinstance(data, dict):
            for section, rows in data.items():
                print(f"## {section}")
                print(format_table(rows if isinstance(rows, list) else [rows]))
                print()
        else:
            print(format_table(data))
        return 0

    return _with_jvm(show)


def _cmd_demo(argv: List[str]) -> int:
    from . import demo

    return int(demo.main(argv) or 0)


def _cmd_bench(argv: List[str]) -> int:
    from . import bench

    return int(bench.main(argv) or 0)

def format_markdown_table(rows: Sequence[Dict[str, Any]]) -> str:
    """Renders a JSON list of objects as a markdown table (list values one per line)."""
    columns: List[str] = []
    for r in rows:
        for k in r:
            if k not in columns:
                columns.append(k)

    def cell(value: Any) -> str:
        items = value if isinstance(value, (list, tuple)) else [value]
        return "<br>".join(_cell(v).replace("|", "\\|") for v in items)

    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(cell(r.get(c)) for c in columns) + " |" for r in rows]
    return "\n".join(out)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_prog(),
        description="fastwindow: fast window functions for Spark SQL. The Python package "
                    "bundles the Spark extension jar; these commands help wire it up.",
    )
    parser.add_argument("--version", action="store_true",
                        help="print fastwindow's version and the Spark lines it has jars for")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p_jar = sub.add_parser("jar", help="print the path of the bundled jar for a Spark line "
                                      "(for spark-submit --jars)")
    p_jar.add_argument("--spark", metavar="VERSION",
                       help="the Spark line or version it must run on, e.g. 4.2 (default: the "
                            "installed pyspark's)")
    p_jar.add_argument("--scala", metavar="VERSION",
                       help="the Scala binary version, e.g. 2.13 (default: the installed "
                            "pyspark's, or the only one there is)")
    p_config = sub.add_parser("config", help="print the Spark confs that enable fastwindow")
    p_config.add_argument("--markdown", action="store_true",
                          help="print the table of every spark.fastwindow.* key "
                               "(starts a local JVM)")
    p_maven = sub.add_parser("maven-repo",
                             help="write this package's jars, with POMs, as a Maven repository "
                                  "(for spark-submit --packages, sbt, Maven)")
    p_maven.add_argument("dir", help="the repository's directory (created if missing)")
    p_support = sub.add_parser("support",
                               help="print what fastwindow supports (starts a local JVM)")
    p_support.add_argument("--json", action="store_true", help="print the raw JSON")
    p_support.add_argument("--markdown", action="store_true",
                           help="print a markdown table (the one in README.md)")
    sub.add_parser("demo", add_help=False,
                   help="time a window workload with fastwindow on and off (demo --help)")
    sub.add_parser("bench", add_help=False, help="run benchmarks (fastwindow.bench)")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; returns the process exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        # demo and bench parse their own arguments.
        if args_list and args_list[0] in _PASSTHROUGH:
            command, rest = args_list[0], args_list[1:]
            return _cmd_demo(rest) if command == "demo" else _cmd_bench(rest)

        parser = build_parser()
        args = parser.parse_args(args_list)
        if args.version:
            return _cmd_version()
        if args.command == "jar":
            return _cmd_jar(args.spark, args.scala)
        if args.command == "config":
            return _cmd_config(args.markdown)
        if args.command == "maven-repo":
            return _cmd_maven_repo(args.dir)
        if args.command == "support":
            return _cmd_support(args.json, args.markdown)
        parser.print_help()
        return 2
    except FastWindowError as exc:
        print(f"fastwindow: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `python -m fastwindow support | head`
        return 0
