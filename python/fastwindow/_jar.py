"""Locating the bundled fastwindow jar and reading its build information (no JVM needed)."""

from __future__ import annotations

import functools
import os
import re
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ._errors import FastWindowError
from ._version import __version__

__all__ = ["jar_path", "bundled_jars", "build_info", "built_for_spark", "spark_minor",
           "check_spark_version"]

#: Directory of the package's jars (one per Spark line); the build backend writes them here.
JARS_DIR = Path(__file__).resolve().parent / "jars"

#: Resource at the jar's root written by the build (version, spark.version, ...).
BUILD_PROPERTIES = "fastwindow-build.properties"

_JAR_NAME = re.compile(r"fastwindow-spark(\d+\.\d+)_(\d+\.\d+)-(.+)\.jar")


def bundled_jars(jars_dir: Optional[Path] = None) -> Dict[Tuple[str, str], Path]:
    """This package's jars by (Spark line, Scala binary version), e.g. ``("4.2", "2.13")``.

    Spark's internals change between minor lines, so a jar runs only on the line it was
    compiled for; a wheel carries one per line.
    """
    jars_dir = JARS_DIR if jars_dir is None else jars_dir
    found: Dict[Tuple[str, str], Path] = {}
    if jars_dir.is_dir():
        for p in sorted(jars_dir.glob("fastwindow-spark*.jar")):
            m = _JAR_NAME.fullmatch(p.name)
            if m and m.group(3) == __version__ and p.is_file():
                found[(m.group(1), m.group(2))] = p
    return found


def _describe(jars: Dict[Tuple[str, str], Path]) -> str:
    by_scala: Dict[str, List[str]] = {}
    for line, scala in sorted(jars, key=lambda k: tuple(int(x) for x in k[0].split("."))):
        by_scala.setdefault(scala, []).append(line)
    return "; ".join(f"Spark {', '.join(lines)} (Scala {scala})"
                     for scala, lines in sorted(by_scala.items()))


def jar_path(spark: Optional[str] = None, scala: Optional[str] = None) -> str:
    """Absolute path of the bundled fastwindow jar for a Spark line.

    Use it with ``spark-submit --jars``, ``spark.jars`` or a Spark Connect server's ``--jars``.
    ``configure()`` and ``enable()`` call it for you.

    Args:
        spark: the Spark version or line the jar must run on (``"4.2"``, ``"4.2.1"``); by
            default the installed pyspark's (on a machine without pyspark, needed unless the
            package carries a single jar).
        scala: the Scala binary version (``"2.13"``); by default the installed pyspark's, or
            the only one the package has for that line.

    Raises:
        FastWindowError: when the package has no jar for that Spark line (the message lists the
            lines it has), or none at all (a source checkout that was never built).
    """
    jars = bundled_jars()
    if not jars:
        raise FastWindowError(
            f"The fastwindow {__version__} jars are not in {JARS_DIR}. The jars are compiled "
            "when the package is built: from a fastwindow checkout run `pip install .` (or "
            "`pip install -e .`) with pyspark installed first (`pip install 'pyspark==4.3.*'`); "
            "otherwise reinstall fastwindow (`pip install --force-reinstall fastwindow`).")
    installed = _installed_pyspark()
    if spark is None and installed is None:
        if len(jars) == 1:
            return str(next(iter(jars.values())))
        raise FastWindowError(
            "No pyspark is installed here, so say which Spark the jar is for: "
            "`python -m fastwindow jar --spark 4.2` or fastwindow.jar_path(spark=\"4.2\"). "
            f"This fastwindow {__version__} has jars for {_describe(jars)}.")
    version = spark if spark is not None else installed[0]
    try:
        line = spark_minor(version)
    except ValueError as exc:
        raise FastWindowError(f"jar_path(spark={spark!r}): {exc}") from None
    if scala is None and installed is not None and _same_line(installed[0], line):
        scala = installed[1]
    matches = {key: p for key, p in jars.items()
               if key[0] == line and (scala is None or key[1] == scala)}
    if len(matches) > 1 and scala is None:
        # Both Scala builds of the line (Spark 3.5): the local pyspark's Scala, if it says.
        local = _pyspark_scala()
        matches = {k: p for k, p in matches.items() if k[1] == local} or matches
    if len(matches) == 1:
        return str(next(iter(matches.values())))
    if len(matches) > 1:
        raise FastWindowError(
            f"fastwindow {__version__} has jars for Spark {line} with Scala "
            f"{' and '.join(sorted(k[1] for k in matches))}: say which "
            f"(`python -m fastwindow jar --spark {line} --scala 2.13`).")
    wanted = f"Spark {version}" + (f" (Scala {scala})" if scala else "")
    raise FastWindowError(
        f"fastwindow {__version__} has no jar for {wanted}: Spark's internals change between "
        f"minor lines, and this package carries jars for {_describe(jars)}. Use one of those "
        "Spark lines; a fastwindow checkout builds every supported line with `pip install .` "
        "(an editable install builds only the installed pyspark's).")


def _same_line(version: str, line: str) -> bool:
    try:
        return spark_minor(version) == line
    except ValueError:  # a version string that is not one (a custom build)
        return False


def _installed_pyspark() -> Optional[Tuple[str, Optional[str]]]:
    """(version, Scala binary version or None) of the pyspark importable here, if any."""
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return None
    try:
        spark_version = version("pyspark")
    except PackageNotFoundError:
        return None
    return spark_version, _pyspark_scala()


@functools.lru_cache(maxsize=1)
def _pyspark_scala() -> Optional[str]:
    """The Scala of the Spark the importable pyspark runs, from its spark-core_<scala>-<version>.jar:
    in $SPARK_HOME/jars when SPARK_HOME is set (pyspark then launches that Spark, whatever its own
    jars/ holds), else pyspark/jars (pip) or the jars/ of the Spark distribution around it."""
    home = os.environ.get("SPARK_HOME", "").strip()
    candidates = [Path(home) / "jars"] if home else []
    try:
        import importlib.util

        spec = importlib.util.find_spec("pyspark")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    package = Path(spec.origin).parent
    for jars in candidates + [package / "jars", package.parent.parent / "jars"]:
        for core in sorted(jars.glob("spark-core_*.jar")) if jars.is_dir() else []:
            m = re.fullmatch(r"spark-core_(\d+\.\d+)-.+\.jar", core.name)
            if m:
                return m.group(1)
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
    """The Spark version a jar was compiled against, e.g. ``"4.3.0"`` (default: ``jar_path()``)."""
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


def check_spark_version(spark_version: str, what: str) -> str:
    """The jar for ``spark_version``'s line; FastWindowError when this package has none.

    Spark's internals are not binary-compatible across minor versions, so a jar compiled for
    Spark 4.3 must not be loaded into Spark 4.2 or 4.4.
    """
    try:
        return jar_path(spark=spark_version)
    except FastWindowError as exc:
        raise FastWindowError(f"fastwindow.{what}(): {exc}") from None
