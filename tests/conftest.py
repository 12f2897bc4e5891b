"""Shared Spark session and test data for the differential suite.

Every test that takes the ``spark`` fixture checks both of fastwindow's evaluators, the generated
one and its interpreted twin, against Spark. By default in one run (``VERIFY``: each task of a
FastWindow operator runs on both evaluators over the same rows and fails where they differ; the
generated one's rows are compared with Spark's), since the twin differs from the generated
evaluator only in its ops (how a function reads, compares, updates and merges values of each
type). Two markers, each with its reason, change that:

* ``generated_only(reason)``: on the generated evaluator alone (``CODEGEN_ONLY``, a compile error
  fails the test), for tests whose subject is the same Scala on both (an operator's planning,
  memory, spilling, streaming), and whose memory limits VERIFY's held rows would change;
* ``separate_twin(reason)``: a run on each (``CODEGEN_ONLY``, then ``NO_CODEGEN``), for the hash
  operators (top-k per group, hash window, group sort), whose interpreted paths VERIFY does not
  reach.

FASTWINDOW_TEST_CODEGEN_MODES (comma-separated modes) replaces all of that for every test: the
line suite (tests/line_suite.py) runs the generated evaluator alone on the other Spark lines.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import random
from decimal import Decimal

import fastwindow
import pytest
from helpers import python_rows_view
from pyspark.sql import SparkSession
from pyspark.sql import types as T

#: Modes for every test instead of the markers' (see above), if set.
CODEGEN_MODES = [m for m in os.environ.get("FASTWINDOW_TEST_CODEGEN_MODES", "").split(",") if m]

VERIFY, GENERATED, INTERPRETED = "VERIFY", "CODEGEN_ONLY", "NO_CODEGEN"
GENERATED_ONLY, SEPARATE_TWIN = "generated_only", "separate_twin"
MARKED_MODES = {GENERATED_ONLY: [GENERATED], SEPARATE_TWIN: [GENERATED, INTERPRETED]}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", f"{GENERATED_ONLY}(reason): run on the generated evaluator only (the reason "
                   "says why the interpreted twin adds nothing to what the test checks)")
    config.addinivalue_line(
        "markers", f"{SEPARATE_TWIN}(reason): run on each evaluator in a run of its own (the "
                   "reason says which interpreted path VERIFY does not reach)")


def pytest_generate_tests(metafunc):
    """Parametrizes the ``spark`` fixture with the test's codegen modes."""
    if "spark" in metafunc.fixturenames:
        metafunc.parametrize("spark", codegen_modes(metafunc.definition), indirect=True)


def codegen_modes(test) -> list:
    if CODEGEN_MODES:
        return CODEGEN_MODES
    for name, modes in MARKED_MODES.items():
        marker = test.get_closest_marker(name)
        if marker is not None:
            if not (marker.args or marker.kwargs.get("reason")):
                raise pytest.UsageError(f"{test.nodeid}: @{name} needs a reason")
            return modes
    return [VERIFY]


@pytest.fixture(scope="session")
def spark_session():
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("fastwindow-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "3")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", os.environ.get("FASTWINDOW_TEST_DRIVER_MEMORY", "2g"))
        # Spark's "corrupt memory" checks and leak reports help catch buffer misuse early.
        .config("spark.unsafe.exceptionOnMemoryLeak", "true")
        # The JIT's first tier only (as Spark's suites and the Scala tests run): the suite is
        # many short queries whose time goes to planning and compiling, not hot loops; the
        # optimizing tier's compiles took a core of their own. Two parts side by side on two
        # cores, CI's shards took ~10% less time this way.
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1")
        # Windows without PARTITION BY spread over ranges whatever their size: the tests' inputs
        # are far below the default threshold (test_across_tasks.py tests the default).
        .config("spark.fastwindow.acrossTasks.minInputSize", "0")
    )
    if os.environ.get("FASTWINDOW_TEST_COMET"):
        # DataFusion Comet in the session (tests/test_comet.py; the 4.1 line's Comet part).
        from fastwindow._comet import comet_confs, comet_jar
        for key, value in comet_confs(comet_jar()).items():
            builder = builder.config(key, value)
    # The configure(builder) route (tests/test_entry_routes.py has the others).
    spark = fastwindow.configure(builder).getOrCreate()
    assert fastwindow.is_enabled(spark), "configure(builder) gave a session without fastwindow"
    spark.sparkContext.setLogLevel("ERROR")
    create_views(spark)
    yield spark
    spark.stop()


@pytest.fixture
def spark(request, spark_session):
    """The shared session, switched to one fastwindow codegen mode for the test."""
    spark_session.conf.set("spark.fastwindow.codegen.mode", request.param)
    yield spark_session
    spark_session.conf.unset("spark.fastwindow.codegen.mode")
    spark_session.conf.set("spark.fastwindow.enabled", "true")


# --------------------------------------------------------------------------------------------
# Test data. Partition key ``p`` gives skewed partitions: big ones, tiny ones, one-row ones and a
# NULL partition; ``id`` is unique (a total order); other columns hold nulls, ties and edge values.
# --------------------------------------------------------------------------------------------

ALL_TYPES_SCHEMA = T.StructType([
    T.StructField("p", T.IntegerType()),
    T.StructField("id", T.LongType(), False),
    T.StructField("g", T.IntegerType()),          # a second, coarse key with many ties
    T.StructField("by", T.ByteType()),
    T.StructField("sh", T.ShortType()),
    T.StructField("i", T.IntegerType()),
    T.StructField("l", T.LongType()),
    T.StructField("f", T.FloatType()),
    T.StructField("d", T.DoubleType()),
    T.StructField("dec", T.DecimalType(10, 2)),
    T.StructField("bigdec", T.DecimalType(38, 6)),
    T.StructField("s", T.StringType()),
    T.StructField("bin", T.BinaryType()),
    T.StructField("bo", T.BooleanType()),
    T.StructField("dt", T.DateType()),
    T.StructField("ts", T.TimestampType()),
    T.StructField("ntz", T.TimestampNTZType()),
    T.StructField("arr", T.ArrayType(T.IntegerType())),
    T.StructField("st", T.StructType([T.StructField("a", T.IntegerType()),
                                      T.StructField("b", T.StringType())])),
    T.StructField("m", T.MapType(T.StringType(), T.IntegerType())),
])

SPECIAL_DOUBLES = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1e308, -1e308, 5e-324]


def _maybe(rng: random.Random, value, null_rate: float = 0.15):
    return None if rng.random() < null_rate else value


def all_types_rows(n: int = 240, seed: int = 7):
    rng = random.Random(seed)
    partitions = [0] * 8 + [1] * 5 + [2] * 3 + [3, 4, 5, 6, None]
    rows = []
    base_date = dt.date(2024, 1, 1)
    base_ts = dt.datetime(2024, 3, 10, 1, 30, 0)
    for k in range(n):
        p = rng.choice(partitions)
        if k >= n - 6:            # a few guaranteed one-row partitions
            p = 100 + k
        d = rng.choice(SPECIAL_DOUBLES) if rng.random() < 0.2 else round(rng.uniform(-50, 50), 3)
        rows.append((
            p,
            k,
            rng.randint(0, 4),
            _maybe(rng, rng.randint(-128, 127)),
            _maybe(rng, rng.randint(-300, 300)),
            _maybe(rng, rng.choice([rng.randint(-20, 20), 2**31 - 1, -2**31])),
            _maybe(rng, rng.randint(-10**6, 10**6)),
            _maybe(rng, float(rng.randint(-40, 40)) / 4),
            _maybe(rng, d),
            _maybe(rng, Decimal(rng.randint(-99999, 99999)) / 100),
            _maybe(rng, Decimal(rng.randint(-10**12, 10**12)) / Decimal(10**6)),
            _maybe(rng, rng.choice(["a", "b", "B", "é", "ab", "", "zz", "日本", "a\u0000b"])),
            _maybe(rng, bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 3)))),
            _maybe(rng, rng.random() < 0.5),
            _maybe(rng, base_date + dt.timedelta(days=rng.randint(-400, 400))),
            _maybe(rng, base_ts + dt.timedelta(seconds=rng.randint(-10**6, 10**6))),
            _maybe(rng, base_ts + dt.timedelta(minutes=rng.randint(-10**4, 10**4))),
            _maybe(rng, [rng.randint(0, 3) for _ in range(rng.randint(0, 3))]),
            _maybe(rng, (rng.randint(0, 2), rng.choice(["x", "y", None]))),
            _maybe(rng, {rng.choice(["k1", "k2"]): rng.randint(0, 9)}),
        ))
    return rows


def create_views(spark: SparkSession) -> None:
    python_rows_view(spark, "t", all_types_rows(), ALL_TYPES_SCHEMA)
    # Empty at run time, but not provably empty to the optimizer.
    python_rows_view(spark, "empty_t", all_types_rows(40, seed=11), ALL_TYPES_SCHEMA,
                     then=lambda df: df.filter("id < 0"))
    # Many tiny partitions: 3000 partitions of 1-3 rows.
    spark.range(0, 6000, 1, 1).selectExpr(
        "id div 2 as p", "id", "cast(id % 7 as int) as i", "id * 0.5 as d").filter("id % 5 != 1") \
        .createOrReplaceTempView("tiny")
    # Values at the edge of overflow.
    overflow_rows = [(1, k, v) for k, v in enumerate(
        [2**63 - 10, 5, 7, -3, 2**62, 2**62, -(2**63) + 1, -(2**62)])]
    python_rows_view(spark, "big", overflow_rows, "p int, id bigint, v bigint")
    nines = "9" * 28 + "." + "9" * 10   # the largest decimal(38,10); no Python arithmetic on it
    dec_rows = [(1, k, Decimal(nines if k % 3 else "-" + nines)) for k in range(12)]
    python_rows_view(spark, "bigdec", dec_rows, "p int, id bigint, v decimal(38,10)")
