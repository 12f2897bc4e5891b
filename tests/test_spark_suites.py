"""Spark's own window tests pass with fastwindow on (see tests/spark_suites.py for how they run).

Runs Spark's window suites and window golden files (4.2.0 test-jars from Maven Central, on the
installed Spark) twice, with fastwindow and without, and checks that fastwindow ran their window
queries, that no test fails with fastwindow that passes without it (but for the reviewed tests
that assert Spark's own operator class), and that the tests failing either way are exactly the
listed ones. Each suite runs twice, in a JVM of its own (the runs with and without fastwindow side
by side), some 140 tests in all.
"""

from __future__ import annotations

import pytest

import spark_suites


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return spark_suites.run(tmp_path_factory.mktemp("spark-suites"), spark_suites.ALL_SUITES)


def test_the_suites_ran(report):
    # 142 tests with the 4.2.0 test-jars; a much smaller number means suites stopped running.
    assert report["tests"]["on"] > 120 and report["tests"]["on"] == report["tests"]["off"], report


def test_fastwindow_ran_their_window_queries(report):
    # Most window operators are FastWindow (the Window ones: functions fastwindow leaves to
    # Spark, such as user-defined aggregates).
    counts = report["window_operators_with_fastwindow"]
    assert counts["FastWindow"] > 20 * counts["Window"], counts


def test_no_test_fails_only_with_fastwindow(report):
    assert report["fastwindow_only"] == {}


def test_the_plan_class_assertions_are_the_reviewed_ones(report):
    assert set(report["plan_class_assertions"]) == {
        spark_suites.key(t) for t in spark_suites.PLAN_CLASS_ASSERTIONS}


def test_failures_without_fastwindow_are_the_listed_ones(report):
    assert set(report["both"]) == {spark_suites.key(t) for t in spark_suites.FAIL_WITHOUT_FASTWINDOW}


def test_every_listed_test_still_fails(report):
    assert report["listed_but_passed"] == {}
