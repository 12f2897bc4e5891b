"""The sources a jar is compiled from, their hash, and the properties file a jar records it in."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from backend_common import (JAVA_DIR, PROPERTIES_NAME, RECIPE, RESOURCES_DIR, ROOT, SCALA_DIR,
                            JarBuildError)
from spark_lines import SparkLine


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


def _jar_is_current(jar: Path, line: SparkLine, version: str) -> bool:
    """Whether ``jar`` was compiled from today's sources (by the compiler it records)."""
    props = read_jar_properties(jar)
    if "spark.version" not in props or "scala.version" not in props:
        return False
    scala_files, java_files, resources = collect_sources(line)
    digest = source_hash(scala_files + java_files + resources, version, props["spark.version"],
                         f"scala-compiler-{props['scala.version']}.jar")
    return props.get("source.hash") == digest
