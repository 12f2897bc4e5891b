"""docker/: the example job works and the image's files agree with the Spark fastwindow targets.

There is no Docker daemon on the development and CI machines, so the image itself is not built
here (see docker/README.md); these tests cover what can run without it.
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


def test_example_job_runs_on_fastwindow_in_local_mode(tmp_path):
    cmd = [sys.executable, str(DOCKER / "example_job.py"), "--local", "--rows", "20000",
           "--customers", "200", "--output", str(tmp_path / "out"), "--compare",
           "--expect-fastwindow"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "FastWindow" in done.stdout
    assert "same rows" in done.stdout


def test_dockerfile_targets_the_installed_spark():
    dockerfile = (DOCKER / "Dockerfile").read_text()
    image = re.search(r"^ARG SPARK_IMAGE=apache/spark:(\d+\.\d+\.\d+)-scala2\.13", dockerfile, re.M)
    pinned = re.search(r"^ARG PYSPARK_VERSION=(\S+)", dockerfile, re.M)
    assert image and pinned, "Dockerfile must pin the Spark image and the pyspark it builds with"
    assert _minor(image.group(1)) == _minor(pinned.group(1)) == _minor(pyspark.__version__)


def test_spark_defaults_enable_the_extension():
    conf = (DOCKER / "spark-defaults.conf").read_text()
    assert re.search(r"^spark\.sql\.extensions\s+fastwindow\.FastWindowExtensions$", conf, re.M)


def test_compose_submits_the_example_job():
    compose = (DOCKER / "docker-compose.yml").read_text()
    assert "/opt/fastwindow/examples/example_job.py" in compose
    assert "COPY docker/example_job.py /opt/fastwindow/examples/example_job.py" in \
        (DOCKER / "Dockerfile").read_text()
