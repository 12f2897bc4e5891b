"""Puts an installed fastwindow wheel into a Spark distribution (used by docker/Dockerfile).

    python3 install_fastwindow.py [--spark-home DIR] [--defaults spark-defaults.conf]

1. checks that the bundled jar was compiled for this Spark's minor version and Scala 2.13
   (Spark's internals change between minor versions: a 4.3 jar must not go into Spark 4.2/4.4);
2. copies the jar into $SPARK_HOME/jars, so every driver, executor and Spark Connect server
   started from this Spark loads it (replacing any other fastwindow jar there);
3. merges the fragment (docker/spark-defaults.conf) into $SPARK_HOME/conf/spark-defaults.conf,
   keeping the classes of an existing spark.sql.extensions / spark.sql.extendedExplainProviders
   and appending fastwindow's (spark-defaults itself has no way to append).

Exits non-zero with a message that says what to change when something does not fit. It needs
the fastwindow package (pip install it first) but not pyspark or a JVM. Python 3.8+.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

#: Keys whose value is a comma-separated list of classes: merged, never replaced.
LIST_KEYS = ("spark.sql.extensions", "spark.sql.extendedExplainProviders")
EXPLAIN_PROVIDER = "fastwindow.explain.FastWindowExplainGenerator"
MARK = "# --- fastwindow"


def fail(msg: str) -> None:
    print(f"install_fastwindow: ERROR: {msg}", file=sys.stderr)
    raise SystemExit(1)


def spark_version(spark_home: Path) -> Tuple[str, str]:
    """(Spark version, Scala binary version), from the spark-core jar's file name."""
    jars = spark_home / "jars"
    for jar in sorted(jars.glob("spark-core_*.jar")):
        m = re.fullmatch(r"spark-core_(\d+\.\d+)-(.+)\.jar", jar.name)
        if m:
            return m.group(2), m.group(1)
    fail(f"no spark-core_<scala>-<version>.jar in {jars}: is {spark_home} a Spark distribution "
         "(set --spark-home or $SPARK_HOME)?")
    raise AssertionError  # unreachable


def minor(version: str) -> str:
    parts = version.split(".")
    return ".".join(parts[:2])


def split_property(line: str) -> Optional[Tuple[str, str]]:
    """``key value`` / ``key=value`` / ``key: value`` (java.util.Properties), or None."""
    stripped = line.strip()
    if not stripped or stripped.startswith(("#", "!")):
        return None
    m = re.match(r"([^\s=:]+)\s*[=:\s]\s*(.*)$", stripped)
    if not m:
        return (stripped, "")
    return m.group(1), m.group(2).strip()


def merge_csv(existing: str, ours: str) -> str:
    items: List[str] = []
    for value in (existing, ours):
        for item in value.split(","):
            item = item.strip()
            if item and item not in items:
                items.append(item)
    return ",".join(items)


def merge_defaults(current: str, fragment: str) -> Tuple[str, Dict[str, str]]:
    """The new spark-defaults.conf text and the effective fastwindow-related values."""
    ours: Dict[str, str] = {}
    for line in fragment.splitlines():
        kv = split_property(line)
        if kv:
            ours[kv[0]] = kv[1]

    # Drop an earlier fastwindow block (re-running the script must not stack blocks).
    if MARK in current:
        current = current[:current.index(MARK)].rstrip("\n") + "\n"

    existing: Dict[str, str] = {}
    kept: List[str] = []
    for line in current.splitlines():
        kv = split_property(line)
        if kv and kv[0] in ours:
            existing[kv[0]] = kv[1]
            kept.append(f"# moved into the fastwindow block below: {line.strip()}")
        else:
            kept.append(line)

    effective: Dict[str, str] = {}
    for key, value in ours.items():
        if key in LIST_KEYS and key in existing:
            effective[key] = merge_csv(existing[key], value)
        else:
            effective[key] = value

    block = [MARK + " (added by docker/install_fastwindow.py; docker/spark-defaults.conf) ---"]
    for line in fragment.splitlines():
        kv = split_property(line)
        if kv:
            block.append(f"{kv[0]:<37} {effective[kv[0]]}")
        else:
            block.append(line)
    text = "\n".join(kept).rstrip("\n")
    text = (text + "\n\n" if text.strip() else "") + "\n".join(block).rstrip("\n") + "\n"
    return text, effective


def main(argv: Optional[List[str]] = None) -> int:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--spark-home", default=os.environ.get("SPARK_HOME"),
                   help="the Spark distribution (default $SPARK_HOME)")
    p.add_argument("--defaults", default=str(here / "spark-defaults.conf"),
                   help="the fragment to merge (default: spark-defaults.conf next to this file)")
    p.add_argument("--conf-dir", default=None,
                   help="where spark-defaults.conf lives (default $SPARK_HOME/conf)")
    args = p.parse_args(argv)
    if not args.spark_home:
        fail("SPARK_HOME is not set; pass --spark-home")
    spark_home = Path(args.spark_home)
    conf_dir = Path(args.conf_dir) if args.conf_dir else spark_home / "conf"

    try:
        import fastwindow
        from fastwindow._jar import has_class
    except ImportError as exc:
        fail(f"the fastwindow package is not installed for {sys.executable} ({exc}); "
             "pip install the fastwindow wheel first")

    try:
        jar = Path(fastwindow.jar_path())
        info = fastwindow.build_info(str(jar))
    except fastwindow.FastWindowError as exc:
        fail(str(exc))
    built = info.get("spark.version", "?")
    built_scala = info.get("scala.binary.version", "?")
    have, have_scala = spark_version(spark_home)

    if have_scala != built_scala:
        fail(f"this Spark ({have}) is built for Scala {have_scala}, the fastwindow jar for Scala "
             f"{built_scala}. Use a Scala {built_scala} Spark image (…-scala{built_scala}-…).")
    if minor(have) != minor(built):
        fail(f"the fastwindow jar ({jar.name}) was compiled against Spark {built}, but this image "
             f"has Spark {have}. Spark's internals change between minor versions, so the jar "
             f"would fail at run time. Build the image with matching versions: "
             f"--build-arg PYSPARK_VERSION={minor(have)}.<patch> for this SPARK_IMAGE, or a "
             f"SPARK_IMAGE with Spark {minor(built)}.x.")
    if have != built:
        print(f"install_fastwindow: note: jar compiled against Spark {built}, image has {have} "
              "(same minor version: fine)")

    # 2. the jar
    target_dir = spark_home / "jars"
    for old in target_dir.glob("fastwindow-*.jar"):
        if old.name != jar.name:
            print(f"install_fastwindow: removing {old}")
            old.unlink()
    target = target_dir / jar.name
    shutil.copyfile(jar, target)
    os.chmod(target, 0o644)

    # 3. spark-defaults.conf
    fragment = Path(args.defaults).read_text(encoding="utf-8")
    if not has_class(EXPLAIN_PROVIDER, str(jar)):
        # An unknown provider class would break every explain(): leave it out.
        fragment = "\n".join(ln for ln in fragment.splitlines()
                             if not ln.strip().startswith("spark.sql.extendedExplainProviders"))
    conf_dir.mkdir(parents=True, exist_ok=True)
    defaults = conf_dir / "spark-defaults.conf"
    current = defaults.read_text(encoding="utf-8") if defaults.exists() else ""
    text, effective = merge_defaults(current, fragment)
    defaults.write_text(text, encoding="utf-8")
    os.chmod(defaults, 0o644)

    print(f"install_fastwindow: fastwindow {fastwindow.__version__} (jar built for Spark {built}) "
          f"installed into Spark {have} at {spark_home}")
    print(f"install_fastwindow:   jar      {target}")
    print(f"install_fastwindow:   defaults {defaults}")
    for key, value in effective.items():
        print(f"install_fastwindow:     {key} = {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
