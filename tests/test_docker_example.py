"""docker/: the example job passes its own checks, and the image's files agree with each other.

There is no Docker daemon on the development and CI machines, so the image itself is not built
here (see docker/README.md); these tests cover what runs without one.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pyspark

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def test_example_job_runs_on_fastwindow_in_local_mode():
    # The job exits 1 unless every window ran on FastWindow with the same rows as Spark's Window.
    done = subprocess.run([sys.executable, str(DOCKER / "example_job.py"), "--local"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "FastWindow (fastwindow)" in done.stdout
    assert "OK: 4 window operators ran on FastWindow" in done.stdout


def test_image_is_built_for_the_installed_spark():
    dockerfile = (DOCKER / "Dockerfile").read_text()
    image = re.search(r"^ARG SPARK_IMAGE=apache/spark:(\d+\.\d+\.\d+)-scala2\.13-\S+-python3-",
                      dockerfile, re.M)
    assert image, "SPARK_IMAGE must default to an apache/spark Scala 2.13 python3 tag"
    assert _minor(image.group(1)) == _minor(pyspark.__version__)
    compose = (DOCKER / "docker-compose.yml").read_text()
    assert f"fastwindow-spark:{image.group(1)}" in compose
    assert f"-t fastwindow-spark:{image.group(1)} ." in (DOCKER / "README.md").read_text()


def test_spark_defaults_enable_the_extension():
    conf = (DOCKER / "spark-defaults.conf").read_text()
    assert re.search(r"^spark\.sql\.extensions\s+fastwindow\.FastWindowExtensions$", conf, re.M)
    dockerfile = (DOCKER / "Dockerfile").read_text()
    assert "COPY docker/spark-defaults.conf" in dockerfile
    assert '"${SPARK_HOME}/conf/spark-defaults.conf"' in dockerfile
    assert '"${SPARK_HOME}/jars/"' in dockerfile


def test_compose_submits_the_example_job_the_image_contains():
    compose = (DOCKER / "docker-compose.yml").read_text()
    dockerfile = (DOCKER / "Dockerfile").read_text()
    copied = re.search(r"^COPY docker/example_job\.py (\S+)$", dockerfile, re.M)
    assert copied and copied.group(1) in compose
    assert "spark://spark-master:7077" in compose
