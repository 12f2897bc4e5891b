"""Locating the bundled fastwindow jar and reading its build information (no JVM needed)."""

from __future__ import annotations

import functools
import os
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ._errors import FastWindowError
from ._version import __version__

__all__ = ["jar_path", "build_info", "built_for_spark", "spark_minor", "check_spark_version"]

#: Directory of the package's jar(s); the build backend writes the jar here.
JARS_DIR = Path(__file__).resolve().parent / "jars"

#: Resource at the jar's root written by the build (version, spark.version, ...).
BUILD_PROPERTIES = "fastwindow-build.properties"

SCALA_BINARY_VERSION = "2.13"


def _candidates(jars_dir: Path) -> List[Path]:
    if not jars_dir.is_dir():
        return []
    pattern = f"fastwindow-spark*_{SCALA_BINARY_VERSION}-{__version__}.jar"
    return sorted(p for p in jars_dir.glob(pattern) if p.is_file())


def jar_path() -> str:
    """Absolute path of the fastwindow jar bundled with this package.

    Use it with ``spark-submit --jars``, ``spark.jars`` or a Spark Connect server's ``--jars``.
    ``configure()`` and ``enable()`` call it for you.

    Raises:
        FastWindowError: when the package has no jar (a source checkout that was never built).
    """
    found = _candidates(JARS_DIR)
    if not found:
        raise FastWindowError(
            f"The fastwindow {__version__} jar is not in {JARS_DIR}. The jar is compiled when the "
            "package is built: from a fastwindow checkout run `pip install .` (or "
            "`pip install -e .`) with pyspark installed first (`pip install 'pyspark==4.3.*'`); "
            "otherwise reinstall fastwindow (`pip install --force-reinstall fastwindow`).")
    if len(found) > 1:
        # Several Spark minors side by side: prefer the installed pyspark's.
        installed = _installed_pyspark_minor()
        for p in found:
            if installed and p.name.startswith(f"fastwindow-spark{installed}_"):
                return str(p)
    return str(found[0])


def _installed_pyspark_minor() -> Optional[str]:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return None
    try:
        return spark_minor(version("pyspark"))
    except (PackageNotFoundError, ValueError):
        return None


@functools.lru_cache(maxsize=8)
def _read_properties(path: str, mtime_ns: int, size: int) -> Tuple[Tuple[str, str], ...]:
    try:
        with zipfile.ZipFile(path) as zf:
            text = zf.read(BUILD_PROPERTIES).decode("utf-8")
    except KeyError:
        raise FastWindowError(f"{path} has no {BUILD_PROPERTIES}: not a fastwindow jar built by "
                              "this package; rebuild it with `pip install .`") from None
    except (OSError, zipfile.BadZipFile) as exc:
        raise FastWindowError(f"cannot read the fastwindow jar {path}: {exc}") from exc
    props = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "!")) and "=" in line:
            key, value = line.split("=", 1)
            props.append((key.strip(), value.strip()))
    return tuple(props)


def build_info(path: Optional[str] = None) -> Dict[str, str]:
    """The jar's ``fastwindow-build.properties`` as a dict.

    Keys include ``version``, ``spark.version`` (the Spark it was compiled against),
    ``scala.binary.version`` and ``source.hash``. Read with zipfile: no JVM is started.
    """
    jar = path or jar_path()
    st = os.stat(jar)
    return dict(_read_properties(jar, st.st_mtime_ns, st.st_size))


def built_for_spark(path: Optional[str] = None) -> str:
    """The Spark version the bundled jar was compiled against, e.g. ``"4.3.0"``."""
    return build_info(path).get("spark.version", "unknown")


def has_class(class_name: str, path: Optional[str] = None) -> bool:
    """Whether the jar contains ``class_name`` (e.g. ``"fastwindow.FastWindow"``)."""
    jar = path or jar_path()
    try:
        with zipfile.ZipFile(jar) as zf:
            zf.getinfo(class_name.replace(".", "/") + ".class")
        return True
    except (KeyError, OSError, zipfile.BadZipFile):
        return False


def spark_minor(version: str) -> str:
    """``"4.3.0"`` -> ``"4.3"``; raises ValueError for something that is not a version."""
    parts = version.strip().split(".")
    if len(parts) < 2 or not parts[0].isdigit() or not parts[1][:1].isdigit():
        raise ValueError(f"not a Spark version: {version!r}")
    minor = "".join(ch for ch in parts[1] if ch.isdigit())
    return f"{int(parts[0])}.{int(minor)}"


def check_spark_version(spark_version: str, what: str) -> None:
    """Raises FastWindowError when ``spark_version``'s major.minor differs from the jar's.

    Spark's internals are not binary-compatible across minor versions, so a jar compiled for
    Spark 4.3 must not be loaded into Spark 4.2 or 4.4.
    """
    built = built_for_spark()
    try:
        want, have = spark_minor(built), spark_minor(spark_version)
    except ValueError:
        return  # an unparseable version (a snapshot build?): let Spark decide
    if want != have:
        raise FastWindowError(
            f"fastwindow.{what}(): this fastwindow {__version__} was built for Spark {built} "
            f"(jar {os.path.basename(jar_path())}), but the Spark in use is {spark_version}. "
            f"Spark's internals differ between minor versions ({want} vs {have}), so the jar "
            f"cannot be loaded. Reinstall fastwindow against Spark {have}: install "
            f"pyspark=={have}.* and then run `pip install --force-reinstall --no-cache-dir .` "
            "from the fastwindow checkout (the jar is compiled against the installed pyspark).")
