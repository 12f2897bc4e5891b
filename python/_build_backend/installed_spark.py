"""Locating the installed Spark the backend compiles against: its jars directory and version."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from backend_common import JarBuildError

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
