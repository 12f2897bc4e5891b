"""Compiling one Spark line's jar: scalac and javac runs, and the jar written from their classes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import List, Mapping, Optional, Tuple

from backend_common import (JARS_DIR, JAVA_RELEASE, PROPERTIES_NAME, RESOURCES_DIR, ROOT,
                            JarBuildError, _log, read_version, user_cache)
from installed_spark import spark_version_of
from jar_sources import collect_sources, jar_name, read_jar_properties, source_hash
from spark_lines import SparkLine


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
        if compiled_before(digest, target.name) is None:
            keep_compiled(target, digest)
        return target
    kept = compiled_before(digest, target.name)
    if kept is not None and not force:
        JARS_DIR.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(kept, target)
        _log(f"{target.relative_to(ROOT)}: these sources were compiled for Spark {spark_version} "
             f"before, taken from {kept}")
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
        # The JIT's first tier only: one compile is too short for the optimizing tier's own
        # compiles to pay (a line: 70 -> 26 s of CPU, 39 -> 20 s); the classes are the same.
        _run_tool(
            f"scalac (Spark {line.line})",
            [java, "-Xss8m", "-Xmx2g", "-XX:TieredStopAtLevel=1", "-cp", classpath,
             "scala.tools.nsc.Main"],
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
    keep_compiled(target, digest)
    return target


#: Compiled jars kept (the most recently used; each a few MiB).
KEPT_JARS = 24


def compiled_jars_dir() -> Optional[Path]:
    """Where compiled jars are kept by the hash of everything they were compiled from (sources,
    fastwindow's version, Spark's version, the compiler, the recipe), so the same inputs compile
    once per machine: a wheel build after an editable install, another clone of the same commit.
    FASTWINDOW_JAR_CACHE names the folder; "off" turns it off."""
    setting = os.environ.get("FASTWINDOW_JAR_CACHE")
    if setting == "off":
        return None
    return Path(setting) if setting else user_cache() / "compiled-jars"


def compiled_before(digest: str, name: str) -> Optional[Path]:
    """The kept jar of these exact inputs, if any."""
    folder = compiled_jars_dir()
    kept = folder / digest / name if folder else None
    if kept is None or not kept.is_file() or read_jar_properties(kept).get("source.hash") != digest:
        return None
    os.utime(kept)  # recently used
    return kept


def keep_compiled(jar: Path, digest: str) -> None:
    """Keeps a copy of a jar just compiled (written whole, then renamed into place), and only the
    KEPT_JARS most recently used. A cache that cannot be written never fails the build."""
    folder = compiled_jars_dir()
    if folder is None:
        return
    try:
        kept = folder / digest / jar.name
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_name(f"{kept.name}.{os.getpid()}.part")
        shutil.copyfile(jar, partial)
        os.replace(partial, kept)
        jars = sorted(folder.glob("*/*.jar"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in jars[KEPT_JARS:]:
            old.unlink()
            if not any(old.parent.iterdir()):
                old.parent.rmdir()
    except OSError as exc:
        _log(f"could not keep a copy of {jar.name} in {folder}: {exc}")
