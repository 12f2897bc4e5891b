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
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

from setuptools import build_meta as _setuptools_backend
from setuptools.build_meta import *  # noqa: F401,F403  (re-export every hook we do not wrap)

from spark_lines import SparkLine, SparkLineError, maven_compile_jars, read_lines, LINES_FILE

#: Bump when the way the jar is compiled or laid out changes, so cached jars are rebuilt.
RECIPE = "fastwindow-jar-recipe-1 scalac:-release:17,-deprecation,-feature javac:--release,17"
JAVA_RELEASE = "17"
PROPERTIES_NAME = "fastwindow-build.properties"

ROOT = Path(__file__).resolve().parents[2]
VERSION_FILE = ROOT / "python" / "fastwindow" / "_version.py"
JARS_DIR = ROOT / "python" / "fastwindow" / "jars"
SCALA_DIR = ROOT / "scala-src" / "main" / "scala"
JAVA_DIR = ROOT / "scala-src" / "main" / "java"
RESOURCES_DIR = ROOT / "scala-src" / "main" / "resources"

#: Environment variables that pip (and similar frontends) set for the isolated build; they must not
#: leak into the subprocess that looks for the user's pyspark.
_BUILD_ENV_VARS = (
    "PYTHONPATH",
    "PYTHONNOUSERSITE",
    "PYTHONHOME",
    "PYTHONSAFEPATH",
    "PIP_BUILD_TRACKER",
    "PIP_REQ_TRACKER",
    "PEP517_BUILD_BACKEND",
    "PEP517_BACKEND_PATH",
    "_PYPROJECT_HOOKS_BUILD_BACKEND",
    "_PYPROJECT_HOOKS_BACKEND_PATH",
)


class JarBuildError(RuntimeError):
    """The fastwindow jar could not be built; the message says why and what to do."""


def _log(msg: str) -> None:
    print(f"fastwindow: {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Locating Spark
# --------------------------------------------------------------------------------------------


def read_version(version_file: Path = VERSION_FILE) -> str:
    """fastwindow's version, from the single line ``__version__ = "x.y.z"`` in ``_version.py``."""
    text = version_file.read_text(encoding="utf-8")
    m = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", text, re.MULTILINE)
    if not m:
        raise JarBuildError(f"no __version__ = \"...\" line in {version_file}")
    return m.group(1)


def spark_version_of(jars_dir: Path) -> Tuple[str, str]:
    """(Spark version, Scala binary version) of a Spark jars directory, from spark-core's name."""
    for jar in sorted(jars_dir.glob("spark-core_*.jar")):
        m = re.fullmatch(r"spark-core_(\d+\.\d+)-(.+)\.jar", jar.name)
        if m:
            return m.group(2), m.group(1)
    raise JarBuildError(f"{jars_dir} has no spark-core_<scala>-<version>.jar: not a Spark jars dir")


def _pyspark_jars_dir(pyspark_dir: Path) -> Optional[Path]:
    # pip-installed pyspark ships its jars inside the package; a pyspark used from a Spark
    # distribution ($SPARK_HOME/python/pyspark) has them in $SPARK_HOME/jars.
    for candidate in (pyspark_dir / "jars", pyspark_dir.parent.parent / "jars"):
        if candidate.is_dir() and any(candidate.glob("spark-core_*.jar")):
            return candidate
    return None


def _clean_env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _BUILD_ENV_VARS}
    return env


def find_spark_jars() -> Tuple[Path, str]:
    """The Spark jars directory to compile against and a description of where it was found."""
    tried: List[str] = []

    env_dir = os.environ.get("FASTWINDOW_SPARK_JARS")
    if env_dir:
        path = Path(env_dir).expanduser()
        if path.is_dir() and any(path.glob("spark-core_*.jar")):
            return path.resolve(), "$FASTWINDOW_SPARK_JARS"
        raise JarBuildError(
            f"FASTWINDOW_SPARK_JARS={env_dir} is not a directory of Spark jars "
            "(no spark-core_*.jar in it)")

    spark_home = os.environ.get("SPARK_HOME")
    if spark_home:
        path = Path(spark_home).expanduser() / "jars"
        if path.is_dir() and any(path.glob("spark-core_*.jar")):
            return path.resolve(), "$SPARK_HOME/jars"
        tried.append(f"$SPARK_HOME/jars ({path}: no spark-core jar)")

    try:
        import pyspark  # noqa: WPS433 (only needed for its location)

        jars = _pyspark_jars_dir(Path(pyspark.__file__).resolve().parent)
        if jars is not None:
            return jars, f"pyspark {getattr(pyspark, '__version__', '?')} (in-process)"
        tried.append(f"import pyspark ({pyspark.__file__}: no jars next to it)")
    except ImportError:
        tried.append("import pyspark (not importable in the build environment)")

    # pip's isolated build environment hides the user's site-packages: ask the same interpreter
    # again with the build environment's variables removed.
    code = "import os, pyspark; print(os.path.dirname(os.path.abspath(pyspark.__file__)))"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code],
            env=_clean_env(),
            cwd=tempfile.gettempdir(),  # not the source tree: no local dir shadowing site-packages
            capture_output=True,
            text=True,
            timeout=120,
        )
        if proc.returncode == 0 and proc.stdout.strip():
            pyspark_dir = Path(proc.stdout.strip().splitlines()[-1])
            jars = _pyspark_jars_dir(pyspark_dir)
            if jars is not None:
                return jars, f"pyspark at {pyspark_dir} (found outside the isolated build env)"
            tried.append(f"{sys.executable} -c 'import pyspark' ({pyspark_dir}: no jars)")
        else:
            tried.append(f"{sys.executable} -c 'import pyspark' (failed: "
                         f"{(proc.stderr.strip().splitlines() or ['?'])[-1]})")
    except (OSError, subprocess.SubprocessError) as exc:
        tried.append(f"{sys.executable} -c 'import pyspark' ({exc})")

    raise JarBuildError(
        "fastwindow's jar is compiled against your installed Spark, but no Spark was found.\n"
        "Install pyspark first, in the same environment:   pip install 'pyspark==4.3.*'\n"
        "or point FASTWINDOW_SPARK_JARS at a directory of Spark jars (e.g. $SPARK_HOME/jars).\n"
        "Tried: " + "; ".join(tried))


# --------------------------------------------------------------------------------------------
# Sources, hashing, the properties file
# --------------------------------------------------------------------------------------------


def _files(root: Path, suffix: Optional[str]) -> List[Path]:
    if not root.is_dir():
        return []
    return sorted(
        p for p in root.rglob("*")
        if p.is_file() and (suffix is None or p.suffix == suffix)
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def collect_sources(line: SparkLine) -> Tuple[List[Path], List[Path], List[Path]]:
    """(Scala files, Java files, resource files) of scala-src/main and the line's shims."""
    scala = _files(SCALA_DIR, ".scala")
    for shim_dir in line.shim_dirs:
        scala += _files(shim_dir, ".scala")
    if not scala:
        raise JarBuildError(f"no *.scala files under {SCALA_DIR}: is this a fastwindow checkout?")
    return scala, _files(JAVA_DIR, ".java"), _files(RESOURCES_DIR, None)


def source_hash(files: List[Path], version: str, spark_version: str, compiler: str) -> str:
    h = hashlib.sha256()
    for part in (RECIPE, version, spark_version, compiler):
        h.update(part.encode("utf-8") + b"\0")
    for f in files:
        h.update(f.relative_to(ROOT).as_posix().encode("utf-8") + b"\0")
        h.update(f.read_bytes() + b"\0")
    return h.hexdigest()


def read_jar_properties(jar: Path) -> Dict[str, str]:
    """``fastwindow-build.properties`` of a jar as a dict (empty when unreadable)."""
    try:
        with zipfile.ZipFile(jar) as zf:
            text = zf.read(PROPERTIES_NAME).decode("utf-8")
    except (OSError, KeyError, zipfile.BadZipFile):
        return {}
    props = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "!")) and "=" in line:
            key, value = line.split("=", 1)
            props[key.strip()] = value.strip()
    return props


def jar_name(version: str, line: SparkLine) -> str:
    return f"fastwindow-spark{line.line}_{line.scala}-{version}.jar"


# --------------------------------------------------------------------------------------------
# Compiling and packaging
# --------------------------------------------------------------------------------------------


def _java_tool(name: str) -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / name
        if candidate.exists():
            return str(candidate)
    found = shutil.which(name)
    if not found:
        raise JarBuildError(
            f"'{name}' not found (neither $JAVA_HOME/bin/{name} nor on PATH): compiling the "
            f"fastwindow jar needs a JDK {JAVA_RELEASE}+ (Spark 4 needs Java 17 anyway).")
    return found


def _argfile_entry(value: str) -> str:
    # scalac and javac @argfiles: quote arguments, escaping backslashes and quotes.
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _run_tool(what: str, cmd: List[str], argfile_args: List[str], workdir: Path) -> None:
    argfile = workdir / f"{what}.args"
    argfile.write_text("\n".join(_argfile_entry(a) for a in argfile_args) + "\n", encoding="utf-8")
    proc = subprocess.run(
        cmd + ["@" + str(argfile)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    )
    output = proc.stdout or ""
    if output.strip():
        sys.stderr.write(output if output.endswith("\n") else output + "\n")
        sys.stderr.flush()
    if proc.returncode != 0:
        lines = output.rstrip().splitlines()
        error_lines = [ln for ln in lines if "error" in ln.lower()]
        shown = "\n".join(lines[-60:]) if lines else "(no output)"
        raise JarBuildError(
            f"{what} failed (exit code {proc.returncode}) while compiling scala-src/main; "
            f"{len(error_lines)} error line(s). Its output ends with:\n{shown}\n"
            f"The fastwindow jar was not built. Fix the sources above (or check that they "
            f"match the installed Spark) and build again.")


def _write_jar(target: Path, classes_dir: Path, resources: List[Path],
               props: Mapping[str, str], version: str) -> Tuple[int, int]:
    """Writes the jar atomically; returns (number of class files, number of entries)."""
    manifest = (
        "Manifest-Version: 1.0\r\n"
        "Created-By: fastwindow in-tree build backend (python/_build_backend)\r\n"
        "Implementation-Title: fastwindow\r\n"
        f"Implementation-Version: {version}\r\n"
        f"Spark-Version: {props['spark.version']}\r\n"
        "\r\n"
    )
    prop_text = "# fastwindow build information, written by python/_build_backend\n" + "".join(
        f"{k}={v}\n" for k, v in props.items())
    fixed_time = (1980, 1, 1, 0, 0, 0)  # reproducible bytes for the same inputs

    def add(zf: zipfile.ZipFile, name: str, data: bytes) -> None:
        info = zipfile.ZipInfo(name, date_time=fixed_time)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        zf.writestr(info, data)

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    n_classes = 0
    n_entries = 0
    with zipfile.ZipFile(tmp, "w") as zf:
        add(zf, "META-INF/MANIFEST.MF", manifest.encode("utf-8"))
        add(zf, PROPERTIES_NAME, prop_text.encode("utf-8"))
        n_entries += 2
        written = {"META-INF/MANIFEST.MF", PROPERTIES_NAME}
        for res in resources:
            name = res.relative_to(RESOURCES_DIR).as_posix()
            if name in written:
                continue
            add(zf, name, res.read_bytes())
            written.add(name)
            n_entries += 1
        for f in sorted(p for p in classes_dir.rglob("*") if p.is_file()):
            name = f.relative_to(classes_dir).as_posix()
            if name in written:
                continue
            add(zf, name, f.read_bytes())
            written.add(name)
            n_entries += 1
            n_classes += name.endswith(".class")
    os.replace(tmp, target)
    return n_classes, n_entries


def _line_of(spark_version: str, scala_binary: str, lines: List[SparkLine]) -> SparkLine:
    minor = ".".join(spark_version.split(".")[:2])
    for line in lines:
        if line.line == minor and line.scala == scala_binary:
            return line
    supported = ", ".join(f"{l.line} (Scala {l.scala})" for l in lines)
    raise JarBuildError(
        f"Spark {spark_version} (Scala {scala_binary}) is not a Spark line fastwindow is built "
        f"for. Supported: {supported}.")


def _jar_is_current(jar: Path, line: SparkLine, version: str) -> bool:
    """Whether ``jar`` was compiled from today's sources (by the compiler it records)."""
    props = read_jar_properties(jar)
    if "spark.version" not in props or "scala.version" not in props:
        return False
    scala_files, java_files, resources = collect_sources(line)
    digest = source_hash(scala_files + java_files + resources, version, props["spark.version"],
                         f"scala-compiler-{props['scala.version']}.jar")
    return props.get("source.hash") == digest


def build_line_jar(line: SparkLine, spark_jars: Path, found_how: str, force: bool = False) -> Path:
    """Compiles scala-src/main plus the line's shims against ``spark_jars`` into jars/."""
    version = read_version()
    scala_files, java_files, resources = collect_sources(line)
    spark_version, _ = spark_version_of(spark_jars)
    compilers = sorted(spark_jars.glob("scala-compiler-*.jar"))
    if not compilers:
        raise JarBuildError(
            f"{spark_jars} has no scala-compiler-*.jar; pyspark 4.x ships one. Point "
            "FASTWINDOW_SPARK_JARS at a pyspark jars directory.")
    compiler = compilers[-1].name
    scala_version = compiler[len("scala-compiler-"):-len(".jar")]

    all_files = scala_files + java_files + resources
    digest = source_hash(all_files, version, spark_version, compiler)
    target = JARS_DIR / jar_name(version, line)
    if target.exists() and not force and read_jar_properties(target).get("source.hash") == digest:
        _log(f"{target.relative_to(ROOT)} is up to date (Spark {spark_version}), not recompiling")
        return target

    java = _java_tool("java")
    _log(f"Spark {line.line}: compiling {len(scala_files)} Scala file(s)"
         + (f" and {len(java_files)} Java file(s)" if java_files else "")
         + f" with Spark {spark_version}'s scalac (Scala {scala_version}) from {found_how}: "
         f"{spark_jars}")
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fastwindow-jar-") as tmp:
        workdir = Path(tmp)
        classes = workdir / "classes"
        classes.mkdir()
        classpath = str(spark_jars / "*")
        # Joint compilation: scalac reads the Java sources (for types) but emits only Scala
        # classes; javac then compiles the Java sources against Spark + the Scala classes.
        _run_tool(
            f"scalac (Spark {line.line})",
            [java, "-Xss8m", "-Xmx2g", "-cp", classpath, "scala.tools.nsc.Main"],
            ["-usejavacp", "-release", JAVA_RELEASE, "-deprecation", "-feature",
             "-encoding", "UTF-8", "-d", str(classes)]
            + [str(f) for f in scala_files + java_files],
            workdir,
        )
        if java_files:
            javac = _java_tool("javac")
            _log(f"compiling {len(java_files)} Java file(s) with {javac}")
            _run_tool(
                f"javac (Spark {line.line})",
                [javac],
                ["--release", JAVA_RELEASE, "-encoding", "UTF-8", "-nowarn", "-d", str(classes),
                 "-cp", str(classes) + os.pathsep + classpath]
                + [str(f) for f in java_files],
                workdir,
            )
        props = {
            "version": version,
            "spark.line": line.line,
            "spark.version": spark_version,
            "scala.binary.version": line.scala,
            "scala.version": scala_version,
            "java.release": JAVA_RELEASE,
            "source.hash": digest,
        }
        n_classes, _ = _write_jar(target, classes, resources, props, version)
    size_kib = target.stat().st_size / 1024
    _log(f"wrote {target.relative_to(ROOT)} ({n_classes} classes, {size_kib:.0f} KiB) in "
         f"{time.monotonic() - start:.1f} s")
    return target


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


def _prepare(config_settings: Optional[Mapping[str, object]], default_lines: str) -> None:
    force = _setting(config_settings, "force-rebuild", "FASTWINDOW_FORCE_REBUILD", "") in (
        "1", "true", "yes")
    which = _setting(config_settings, "spark-lines", "FASTWINDOW_SPARK_LINES", default_lines)
    try:
        build_jars(which, force=force)
    except (JarBuildError, SparkLineError) as exc:
        # A clear message first, then fail the build (pip shows stderr of a failed backend).
        _log("ERROR: " + str(exc))
        raise
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
    _prepare(config_settings, default_lines="all")
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
