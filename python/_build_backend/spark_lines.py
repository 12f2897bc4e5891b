"""The Spark lines fastwindow is built for, and the Spark jars to compile each one against.

``scala-src/shims/spark-lines.tsv`` lists the lines (one jar each), their Scala version, the shim
source folders of each, and the Spark release on Maven Central to compile against when the
installed pyspark is of another line. Compiling needs only Spark's API jars and the Scala compiler,
so for such a line a small compile classpath is downloaded from Maven Central (once, into a cache
directory) instead of a whole Spark distribution.
"""

from __future__ import annotations

import os
import re
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

from backend_common import user_cache

ROOT = Path(__file__).resolve().parents[2]
SHIMS_DIR = ROOT / "scala-src" / "shims"
LINES_FILE = SHIMS_DIR / "spark-lines.tsv"

#: Where compile classpaths are downloaded from; a mirror can be set with this variable.
MAVEN_REPO = os.environ.get("FASTWINDOW_MAVEN_REPO", "https://repo1.maven.org/maven2").rstrip("/")

#: Spark modules whose classes fastwindow's sources name (directly or in signatures they use).
#: Optional ones exist only in some lines.
SPARK_MODULES = ("spark-core", "spark-catalyst", "spark-sql", "spark-sql-api", "spark-unsafe",
                 "spark-common-utils", "spark-network-common", "spark-tags")
OPTIONAL_SPARK_MODULES = ("spark-common-utils-java", "spark-variant")


#: Third-party jars whose classes appear in signatures fastwindow compiles against (loggers,
#: Kryo on UnsafeRow, Janino in codegen). Compile-time only: at run time Spark's own are used.
SIGNATURE_JARS = (("org.slf4j", "slf4j-api", "2.0.17"),
                  ("com.esotericsoftware", "kryo-shaded", "4.0.3"),
                  ("org.codehaus.janino", "janino", "3.1.9"),
                  ("org.codehaus.janino", "commons-compiler", "3.1.9"),
                  # The explain JSON's generator; every Spark line ships a Jackson 2.15 or newer.
                  ("com.fasterxml.jackson.core", "jackson-core", "2.15.2"))


class SparkLineError(RuntimeError):
    """A Spark line cannot be built; the message says why."""


@dataclass(frozen=True)
class SparkLine:
    """One row of spark-lines.tsv."""

    line: str             # "4.2"
    scala: str            # "2.13"
    shims: Tuple[str, ...]
    maven: Optional[str]  # "4.2.0", or None when Maven Central has no release of the line
    maven_scala: Optional[str]  # the Scala release that Spark was built with, e.g. "2.13.18"

    @property
    def shim_dirs(self) -> List[Path]:
        return [SHIMS_DIR / name / "scala" for name in self.shims]


def read_lines(path: Path = LINES_FILE) -> List[SparkLine]:
    """The lines of ``spark-lines.tsv``, in file order."""
    lines = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        fields = raw.split()
        if len(fields) != 4:
            raise SparkLineError(f"{path}: expected 4 fields (line scala shims maven): {raw!r}")
        line, scala, shims, maven = fields
        release, _, scala_release = maven.partition("/")
        if maven != "-" and not scala_release:
            raise SparkLineError(f"{path}: line {line}: maven must be <spark>/<scala>: {maven!r}")
        spark_line = SparkLine(line, scala, tuple(shims.split(",")),
                               None if maven == "-" else release, scala_release or None)
        missing = [d for d in spark_line.shim_dirs if not d.is_dir()]
        if missing:
            raise SparkLineError(f"{path}: line {line} names missing shim folders {missing}")
        lines.append(spark_line)
    return lines


def _fetch(url: str, target: Path) -> bool:
    """Downloads ``url`` to ``target``; False when the repository has no such file (404)."""
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            tmp = target.with_name(target.name + ".part")
            with open(tmp, "wb") as out:
                shutil.copyfileobj(response, out)
            os.replace(tmp, target)
            return True
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return False
        raise SparkLineError(f"downloading {url} failed: HTTP {exc.code}") from exc
    except OSError as exc:
        raise SparkLineError(f"downloading {url} failed: {exc}") from exc


def _maven_url(group: str, artifact: str, version: str, ext: str) -> str:
    return f"{MAVEN_REPO}/{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}.{ext}"


def cache_dir() -> Path:
    return user_cache() / "spark-compile"


def maven_compile_jars(line: SparkLine, log) -> Path:
    """A directory with the jars to compile ``line`` against, downloaded from Maven Central once."""
    if line.maven is None:
        raise SparkLineError(
            f"Spark {line.line} is not on Maven Central; its jar is built only when pyspark "
            f"{line.line} is installed (or FASTWINDOW_SPARK_JARS points at its jars)")
    target = cache_dir() / f"spark-{line.maven}_{line.scala}"
    scala_suffix = f"_{line.scala}"
    wanted = [("org.apache.spark", m + scala_suffix, line.maven, True) for m in SPARK_MODULES]
    wanted += [("org.apache.spark", m + scala_suffix, line.maven, False)
               for m in OPTIONAL_SPARK_MODULES]
    wanted += [("org.scala-lang", m, line.maven_scala, True)
               for m in ("scala-library", "scala-reflect", "scala-compiler")]
    wanted += [(group, artifact, version, True) for group, artifact, version in SIGNATURE_JARS]
    # A cache made before a jar joined the list gets that jar alone.
    complete = target / ".complete"
    done = set(complete.read_text().split()) if complete.is_file() else set()
    if all(f"{artifact}-{version}.jar" in done for _, artifact, version, required in wanted
           if required):
        return target
    log(f"downloading the compile classpath of Spark {line.maven} (Scala {line.scala}) from "
        f"{MAVEN_REPO} into {target}")
    target.mkdir(parents=True, exist_ok=True)
    for group, artifact, version, required in wanted:
        jar = target / f"{artifact}-{version}.jar"
        if jar.is_file():
            continue
        if not _fetch(_maven_url(group, artifact, version, "jar"), jar) and required:
            raise SparkLineError(f"{group}:{artifact}:{version} is not on {MAVEN_REPO}")
    (target / ".complete").write_text("\n".join(sorted(p.name for p in target.glob("*.jar"))))
    return target
