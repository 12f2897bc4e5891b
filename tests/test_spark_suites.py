"""Spark's own window tests pass with fastwindow on (see tests/spark_suites.py for how they run).

Runs Spark's window suites and window golden files (4.2.0 test-jars from Maven Central, on the
installed Spark) with fastwindow, each in a JVM of its own, some 140 tests, and checks that
fastwindow ran their window queries, that no test fails with fastwindow but the reviewed ones that
assert Spark's own operator class and the listed ones that fail without fastwindow too (run
``python tests/spark_suites.py --baseline`` to see which those are after a Spark upgrade). The
golden files' suite also runs without fastwindow, first: it writes the installed Spark's answers,
which the run with fastwindow is compared with (kept in the user's cache for the next run with the
same Spark jars and test-jars).
"""

from __future__ import annotations

import pytest

import spark_suites


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return spark_suites.run(tmp_path_factory.mktemp("spark-suites"), spark_suites.ALL_SUITES)


def test_the_suites_ran(report):
    # 135 tests with the 4.2.0 test-jars; a much smaller number means suites stopped running.
    assert report["tests"]["on"] > 120, report
    # The golden results are this Spark's: regenerated without fastwindow, or kept from a run that
    # regenerated them with the same Spark jars and test-jars.
    regenerated = report["golden_results"].startswith("regenerated")
    assert report["suites_without_fastwindow"] == (
        sorted(spark_suites.REGENERATED_SUITES) if regenerated else []), report


def test_fastwindow_ran_their_window_queries(report):
    # Most window operators are FastWindow (the Window ones: functions fastwindow leaves to
    # Spark, such as user-defined aggregates).
    counts = report["window_operators_with_fastwindow"]
    assert counts["FastWindow"] > 20 * counts["Window"], counts


def test_no_test_fails_only_with_fastwindow(report):
    assert report["fastwindow_only"] == {}, (
        "failures with fastwindow; if Spark or its test-jars changed, `python tests/spark_suites.py "
        "--baseline` tells which fail without fastwindow too")


def test_the_plan_class_assertions_are_the_reviewed_ones(report):
    assert set(report["plan_class_assertions"]) == {
        spark_suites.key(t) for t in spark_suites.PLAN_CLASS_ASSERTIONS}


def test_failures_without_fastwindow_are_the_listed_ones(report):
    assert set(report["both"]) == {spark_suites.key(t) for t in spark_suites.FAIL_WITHOUT_FASTWINDOW}


def test_every_listed_test_still_fails(report):
    assert report["listed_but_passed"] == {}
