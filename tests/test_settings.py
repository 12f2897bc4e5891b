"""fastwindow's settings are checked when they are set, as Spark's own are.

Every ``spark.fastwindow.*`` key is registered with Spark's SQL conf when fastwindow is installed,
so ``spark.conf.set`` and SQL ``SET`` refuse a bad value at once, with an error that names the key
and what it accepts, and the session keeps its previous value. Only window queries read the keys:
a bad value that got in before fastwindow was installed fails window queries with that error and
nothing else, and ``SET key=good`` recovers. (Spark Connect: ``test_deployments``.)
"""

from __future__ import annotations

import re

import pytest

from helpers import run

BAD = "not-a-value"


@pytest.fixture(scope="module")
def table(spark_session):
    """(key, default, meaning) of every key, from the jar's own table."""
    markdown = spark_session._jvm.fastwindow.FastWindow.configMarkdown()
    rows = re.findall(r"^\| `(spark\.fastwindow\.[^`]+)` \| `([^`]*)` \| (.*) \|$", markdown, re.M)
    assert rows and len(rows) == markdown.count("| `spark.fastwindow."), markdown
    return rows


@pytest.fixture(scope="module")
def keys(table):
    """(key, default) of every key."""
    return [(key, default) for key, default, _ in table]


def _refused(action, key: str) -> None:
    with pytest.raises(Exception) as err:
        action()
    message = str(err.value)
    assert f"Invalid value '{BAD}' for {key}: expected " in message, message


def test_every_key_refuses_a_bad_value_when_set(spark_session, keys):
    spark = spark_session.newSession()
    for key, default in keys:
        before = spark.conf.get(key)  # the default, or the value the test session starts with
        _refused(lambda: spark.conf.set(key, BAD), key)
        _refused(lambda: spark.sql(f"SET {key}={BAD}"), key)
        assert spark.conf.get(key) == before, key  # unchanged
        spark.sql(f"SET {key}={default}")
        assert spark.conf.get(key) == default, key
    assert spark.sql("select 1 as one").collect()[0].one == 1


def test_set_lists_every_key_with_its_doc(spark_session, table):
    """Every key but the internal limits, which `SET -v` leaves out as it does Spark's own."""
    listed = {r.key: r for r in spark_session.sql("SET -v").collect()}
    internal = [key for key, _, meaning in table if meaning.startswith("*Internal.*")]
    assert internal and not set(internal) & set(listed), internal
    for key, _, _ in table:
        if key in internal:
            continue
        assert key in listed, key
        # The value in effect: the default, or the one the test session starts with.
        assert listed[key].value == spark_session.conf.get(key) and listed[key].meaning, key


def test_a_bad_value_set_before_install_breaks_only_window_queries(spark_session):
    """A value that got past the check (set on a session before fastwindow was installed):
    queries without windows run, window queries fail with the error that names the key, and
    SET with a good value recovers."""
    spark = spark_session.newSession()
    key = "spark.fastwindow.enabled"
    spark._jsparkSession.sessionState().conf().settings().put(key, "maybe")
    assert spark.sql("select 1 as one").collect()[0].one == 1
    assert spark.range(5).groupBy().sum("id").collect()[0][0] == 10
    window = "select id, row_number() over (order by id) r from range(5)"
    with pytest.raises(Exception, match=f"Invalid value 'maybe' for {key}: expected true or false"):
        spark.sql(window).collect()
    spark.sql(f"SET {key}=true")
    fast = run(spark, window, fastwindow_on=True)
    assert [r.operator for r in fast.reports] == ["FastWindow"], fast.reports


def test_an_unknown_key_breaks_only_window_queries(spark_session):
    """A misspelt key (Spark keeps any key it does not know) fails window queries, naming it and
    the known keys: it is checked once per query with a window, before planning."""
    spark = spark_session.newSession()
    typo = "spark.fastwindow.acrossTasks.enabeld"
    spark.conf.set(typo, "true")
    assert spark.range(5).groupBy().sum("id").collect()[0][0] == 10
    window = "select id, rank() over (order by id) r from range(5)"
    with pytest.raises(Exception, match=f"Unknown fastwindow setting {typo}; the keys are: "):
        spark.sql(window).collect()
    spark.conf.unset(typo)
    assert [r.r for r in spark.sql(window).collect()] == [1, 2, 3, 4, 5]
