"""fastwindow's jars as a Maven repository, for ``spark-submit --packages`` and sbt/Maven builds.

Spark users add extensions by Maven coordinates (``--packages group:artifact_2.13:version``, an
sbt or Maven dependency). ``python -m fastwindow maven-repo DIR`` writes the jars this package
carries into DIR in Maven's repository layout, each with a POM that names the Spark it was
compiled against as a *provided* dependency (Spark is on the classpath already, and resolution
must not fetch it), and SHA-1/MD5 checksums. DIR can then be used as a repository directly
(``--repositories file:///DIR``) or uploaded to an internal one (Nexus, Artifactory, S3).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Dict, Iterable, List
from xml.sax.saxutils import escape

from ._jar import _JAR_NAME, build_info

#: The Maven group of every fastwindow artifact.
GROUP_ID = "io.github.fastwindow"


def artifact_id(spark_line: str, scala: str) -> str:
    """``fastwindow-spark4.3_2.13``: one artifact per Spark line and Scala version."""
    return f"fastwindow-spark{spark_line}_{scala}"


def coordinates(spark_line: str, scala: str, version: str) -> str:
    """``group:artifact:version``, as ``--packages`` takes it."""
    return f"{GROUP_ID}:{artifact_id(spark_line, scala)}:{version}"


def pom(spark_line: str, scala: str, version: str, spark_version: str) -> str:
    """The POM of one line's jar: Spark SQL (of that Scala version) provided."""
    fields = {k: escape(v) for k, v in {
        "group": GROUP_ID, "artifact": artifact_id(spark_line, scala), "version": version,
        "spark": spark_version, "scala": scala, "line": spark_line}.items()}
    return """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>{group}</groupId>
  <artifactId>{artifact}</artifactId>
  <version>{version}</version>
  <packaging>jar</packaging>
  <name>fastwindow for Spark {line} (Scala {scala})</name>
  <description>Fast window functions for Spark SQL: a SparkSessionExtensions (fastwindow.FastWindowExtensions) that runs SQL window functions on its own operator, with Spark's results.</description>
  <licenses>
    <license>
      <name>Apache License, Version 2.0</name>
      <url>https://www.apache.org/licenses/LICENSE-2.0.txt</url>
    </license>
  </licenses>
  <dependencies>
    <dependency>
      <groupId>org.apache.spark</groupId>
      <artifactId>spark-sql_{scala}</artifactId>
      <version>{spark}</version>
      <scope>provided</scope>
    </dependency>
  </dependencies>
</project>
""".format(**fields)


def _write_with_checksums(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    for algorithm in ("sha1", "md5"):
        digest = hashlib.new(algorithm, data).hexdigest()
        path.with_name(path.name + "." + algorithm).write_text(digest)


def _metadata(artifact: str, version: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<metadata>\n  <groupId>{GROUP_ID}</groupId>\n'
            f"  <artifactId>{artifact}</artifactId>\n  <versioning>\n"
            f"    <latest>{version}</latest>\n    <release>{version}</release>\n"
            f"    <versions>\n      <version>{version}</version>\n    </versions>\n"
            "  </versioning>\n</metadata>\n")


def write_repository(jars: Iterable[Path], out_dir: Path) -> List[str]:
    """Writes each fastwindow jar (named ``fastwindow-spark<line>_<scala>-<version>.jar``) into
    ``out_dir`` in Maven's layout, with its POM, metadata and checksums; returns the
    coordinates written."""
    written: List[str] = []
    for jar in jars:
        m = _JAR_NAME.fullmatch(jar.name)
        if not m:
            raise ValueError(f"{jar} is not a fastwindow jar (fastwindow-spark<line>_<scala>-<version>.jar)")
        line, scala, version = m.groups()
        spark_version = build_info(str(jar)).get("spark.version")
        if not spark_version:
            raise ValueError(f"{jar} does not say which Spark it was compiled against")
        artifact = artifact_id(line, scala)
        folder = out_dir.joinpath(*GROUP_ID.split("."), artifact, version)
        folder.mkdir(parents=True, exist_ok=True)
        base = f"{artifact}-{version}"
        _write_with_checksums(folder / f"{base}.jar", jar.read_bytes())
        _write_with_checksums(folder / f"{base}.pom",
                              pom(line, scala, version, spark_version).encode())
        _write_with_checksums(folder.parent / "maven-metadata.xml",
                              _metadata(artifact, version).encode())
        written.append(coordinates(line, scala, version))
    return written


def write_bundled(out_dir: Path, jars: Dict[tuple, Path]) -> List[str]:
    """The repository of the jars this package carries (``bundled_jars()``)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"{out_dir} exists and is not a directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    return write_repository(sorted(jars.values()), out_dir)


__all__ = ["GROUP_ID", "artifact_id", "coordinates", "pom", "write_repository", "write_bundled"]
