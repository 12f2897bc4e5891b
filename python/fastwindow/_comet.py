"""Apache DataFusion Comet beside fastwindow: its jar from Maven Central and the settings that
start a session with both (for the bench's Comet systems and the tests' Comet part).

Comet's plugin and shuffle manager are static settings: a session with Comet is started with
them, never switched to it. fastwindow then leaves to Comet the windows it runs natively and
faster (``spark.fastwindow.besideComet``; docs/support.md, "Beside DataFusion Comet").
"""

from __future__ import annotations

import os
import urllib.request
from pathlib import Path
from typing import Dict, Optional

from ._errors import FastWindowError

__all__ = ["COMET_SPARK_LINE", "comet_jar", "comet_confs"]

#: The Comet release fastwindow is tested with, and the one Spark line Maven Central serves it for.
COMET_VERSION = "1.2.0"
COMET_SPARK_LINE = "4.1"
_ARTIFACT = f"comet-spark-spark{COMET_SPARK_LINE}_2.13"
_MAVEN = os.environ.get("FASTWINDOW_MAVEN_REPO", "https://repo1.maven.org/maven2").rstrip("/")


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fastwindow" / "comet"


def comet_jar(cache: Optional[Path] = None) -> Path:
    """Comet's jar (with its native library), downloaded once from Maven Central into
    ``~/.cache/fastwindow/comet`` (``FASTWINDOW_COMET_JAR`` names one to use instead)."""
    given = os.environ.get("FASTWINDOW_COMET_JAR")
    if given:
        if not Path(given).is_file():
            raise FastWindowError(f"FASTWINDOW_COMET_JAR={given} is not a file")
        return Path(given)
    target = (cache or _cache_dir()) / f"{_ARTIFACT}-{COMET_VERSION}.jar"
    if target.is_file():
        return target
    url = (f"{_MAVEN}/org/apache/datafusion/{_ARTIFACT}/{COMET_VERSION}/"
           f"{_ARTIFACT}-{COMET_VERSION}.jar")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    try:
        with urllib.request.urlopen(url, timeout=300) as response, open(partial, "wb") as out:
            while True:
                chunk = response.read(1 << 20)
                if not chunk:
                    break
                out.write(chunk)
    except OSError as e:
        partial.unlink(missing_ok=True)
        raise FastWindowError(f"downloading Comet {COMET_VERSION} from {url} failed: {e}") from e
    os.replace(partial, target)
    return target


def comet_confs(jar: Path, off_heap: str = "2g") -> Dict[str, str]:
    """The settings of a session with Comet (its plugin, its shuffle manager, the jar on the
    driver's class path, off-heap memory), to add to a builder before ``configure(builder)``."""
    return {
        "spark.jars": str(jar),
        "spark.driver.extraClassPath": str(jar),
        "spark.executor.extraClassPath": str(jar),
        "spark.plugins": "org.apache.spark.CometPlugin",
        "spark.shuffle.manager":
            "org.apache.spark.sql.comet.execution.shuffle.CometShuffleManager",
        "spark.memory.offHeap.enabled": "true",
        "spark.memory.offHeap.size": off_heap,
    }
