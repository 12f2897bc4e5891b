"""In-tree PEP 517 build backend for fastwindow.

It wraps ``setuptools.build_meta`` and, before a wheel or an editable install is built, compiles
the Scala (and Java) sources under ``scala-src/main``, plus each Spark line's shim folders
(``scala-src/shims``, listed in ``scala-src/shims/spark-lines.tsv``), into
``python/fastwindow/jars/fastwindow-spark<line>_<scala>-<version>.jar``: one jar per Spark line,
each compiled with the Scala compiler of that Spark.

Which lines: a wheel (``pip wheel .``, ``pip install .``) carries every line, an editable install
only the installed Spark's (``--config-settings spark-lines=all|installed|4.2,4.3`` or
``$FASTWINDOW_SPARK_LINES`` choose). The installed Spark's line is compiled against the installed
Spark, found in this order:

1. ``$FASTWINDOW_SPARK_JARS`` (a directory of Spark jars);
2. ``$SPARK_HOME/jars``;
3. ``import pyspark`` in this process;
4. ``import pyspark`` in a subprocess of ``sys.executable`` with a cleaned environment, because
   pip's isolated build environment hides the user's site-packages from this process.

Other lines are compiled against their Spark's API jars from Maven Central (downloaded once into
``~/.cache/fastwindow``; see ``spark_lines.py``). A line with no Maven release (4.3) is built
only next to its pyspark.

A jar is not rebuilt when it exists and its ``source.hash`` (sources + Spark version + compiler
recipe, stored in ``fastwindow-build.properties`` inside the jar) still matches. Set
``FASTWINDOW_FORCE_REBUILD=1`` (or ``--config-settings force-rebuild=true``) to rebuild anyway.

pyspark is deliberately not a build requirement: with build isolation pip would download a second
copy of it instead of using the one the user has.

The backend's parts are sibling modules on ``backend-path``: ``backend_common.py`` (recipe, paths,
version, errors), ``installed_spark.py`` (finding the installed Spark), ``jar_sources.py`` (sources,
their hash, a jar's properties), ``jar_compile.py`` (compiling and writing one line's jar) and
``spark_lines.py``; this module chooses the lines to build and holds the PEP 517 hooks and ``main``.
"""

from __future__ import annotations

import os
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import List, Mapping, Optional, Tuple

from setuptools import build_meta as _setuptools_backend
from setuptools.build_meta import *  # noqa: F401,F403  (re-export every hook we do not wrap)

from spark_lines import SparkLine, SparkLineError, maven_compile_jars, read_lines, LINES_FILE

# The backend's parts; every name the module had before its split is still importable from here.
from backend_common import (  # noqa: F401
    JARS_DIR, JAVA_DIR, JAVA_RELEASE, PROPERTIES_NAME, RECIPE, RESOURCES_DIR, ROOT, SCALA_DIR,
    VERSION_FILE, JarBuildError, _log, read_version)
from installed_spark import find_spark_jars, spark_version_of  # noqa: F401
from jar_compile import build_line_jar  # noqa: F401
from jar_sources import (  # noqa: F401
    _jar_is_current, collect_sources, jar_name, read_jar_properties, source_hash)


def _line_of(spark_version: str, scala_binary: str, lines: List[SparkLine]) -> SparkLine:
    minor = ".".join(spark_version.split(".")[:2])
    for line in lines:
        if line.line == minor and line.scala == scala_binary:
            return line
    supported = ", ".join(f"{l.line} (Scala {l.scala})" for l in lines)
    raise JarBuildError(
        f"Spark {spark_version} (Scala {scala_binary}) is not a Spark line fastwindow is built "
        f"for. Supported: {supported}.")


def _wanted_lines(which: str, lines: List[SparkLine]) -> List[SparkLine]:
    if which in ("all", "installed"):
        return list(lines)
    names = [n.strip() for n in which.split(",") if n.strip()]
    unknown = [n for n in names if n not in {l.line for l in lines}]
    if unknown:
        raise JarBuildError(
            f"spark-lines={which}: no Spark line {unknown} in {LINES_FILE.relative_to(ROOT)} "
            f"(known: {', '.join(l.line for l in lines)}; or 'all', 'installed')")
    return [l for l in lines if l.line in names]


def build_jars(which: str = "installed", force: bool = False) -> List[Path]:
    """Builds the jars of the Spark lines ``which`` names and returns their paths.

    ``installed``: only the installed Spark's line (quick; editable installs, development).
    ``all``: every line of spark-lines.tsv, the installed one against the installed Spark and the
    others against compile classpaths from Maven Central; a line that cannot be obtained (4.3
    without pyspark 4.3) is reported and left out. ``4.2,4.3``: those lines, each required.
    """
    lines = read_lines()
    version = read_version()
    installed: Optional[Tuple[SparkLine, Path, str]] = None
    try:
        spark_jars, found_how = find_spark_jars()
        installed = (_line_of(*spark_version_of(spark_jars), lines), spark_jars, found_how)
    except JarBuildError as exc:
        if which == "installed":
            raise
        _log(f"no installed Spark to compile against ({exc}); using Maven Central for all lines")

    jobs: List[Tuple[SparkLine, Path, str]] = []
    if which == "installed":
        jobs.append(installed)
    else:
        for line in _wanted_lines(which, lines):
            if installed is not None and installed[0] == line:
                jobs.append(installed)
                continue
            try:
                jobs.append((line, maven_compile_jars(line, _log), "Maven Central"))
            except SparkLineError as exc:
                if which != "all":
                    raise JarBuildError(str(exc)) from exc
                _log(f"WARNING: no jar for Spark {line.line} in this build: {exc}")
    if not jobs:
        raise JarBuildError("no Spark line could be built (see the messages above)")

    _remove_stale_jars(version, {line.line for line, _, _ in jobs}, lines)
    # scalac is mostly single-threaded: two lines compile side by side on a 2-core machine.
    workers = max(1, min(len(jobs), os.cpu_count() or 1, 4))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(build_line_jar, line, jars, how, force) for line, jars, how in jobs]
        return [f.result() for f in futures]


def _remove_stale_jars(version: str, building: set, lines: List[SparkLine]) -> None:
    """Never ship a jar of another fastwindow version, an unknown line, or older sources."""
    if not JARS_DIR.is_dir():
        return
    by_name = {jar_name(version, line): line for line in lines}
    for jar in sorted(JARS_DIR.glob("fastwindow-*.jar*")):
        line = by_name.get(jar.name)
        if line is not None and (line.line in building or _jar_is_current(jar, line, version)):
            continue
        _log(f"removing stale {jar.name}")
        jar.unlink()


def _setting(config_settings: Optional[Mapping[str, object]], key: str, env: str,
             default: str) -> str:
    value = (config_settings or {}).get(key) or os.environ.get(env) or default
    return str(value).strip().lower()


def _prepare(config_settings: Optional[Mapping[str, object]], default_lines: str,
             only_built: bool = False) -> None:
    force = _setting(config_settings, "force-rebuild", "FASTWINDOW_FORCE_REBUILD", "") in (
        "1", "true", "yes")
    which = _setting(config_settings, "spark-lines", "FASTWINDOW_SPARK_LINES", default_lines)
    try:
        built = build_jars(which, force=force)
    except (JarBuildError, SparkLineError) as exc:
        # A clear message first, then fail the build (pip shows stderr of a failed backend).
        _log("ERROR: " + str(exc))
        raise
    if only_built:
        # A wheel ships exactly what this build made: no jar an earlier build left next to them
        # (of a line this build left out, e.g. spark-lines=4.3 after an `all` build).
        for jar in sorted(JARS_DIR.glob("fastwindow-*.jar")):
            if jar.resolve() not in {b.resolve() for b in built}:
                _log(f"not shipping {jar.name}: this build did not make it")
                jar.unlink()
    # setuptools reuses build/lib between builds; a jar left there by an earlier build (another
    # Spark minor, another version) would otherwise end up in the wheel next to the new one.
    stale_build_jars = ROOT / "build" / "lib" / "fastwindow" / "jars"
    if stale_build_jars.is_dir():
        shutil.rmtree(stale_build_jars, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# PEP 517 / 660 hooks that need the jar
# --------------------------------------------------------------------------------------------


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):  # noqa: D103
    # A wheel is what gets shipped: one jar per Spark line.
    _prepare(config_settings, default_lines="all", only_built=True)
    return _setuptools_backend.build_wheel(wheel_directory, config_settings, metadata_directory)


if hasattr(_setuptools_backend, "build_editable"):

    def build_editable(wheel_directory, config_settings=None, metadata_directory=None):  # noqa
        # An editable install is a development loop: the installed Spark's line only.
        _prepare(config_settings, default_lines="installed")
        return _setuptools_backend.build_editable(
            wheel_directory, config_settings, metadata_directory)


def main(argv: Optional[List[str]] = None) -> int:
    """``python python/_build_backend/fastwindow_backend.py [--force] [--spark-lines all|4.2,..]``

    Builds only the jar(s), by default the installed Spark's line.
    """
    args = sys.argv[1:] if argv is None else argv
    which = "installed"
    if "--spark-lines" in args:
        which = args[args.index("--spark-lines") + 1]
    try:
        for jar in build_jars(which, force="--force" in args):
            print(jar)
    except (JarBuildError, SparkLineError) as exc:
        _log("ERROR: " + str(exc))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
