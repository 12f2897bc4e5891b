"""Unit tests of the fastwindow Python package: configure(), enable() and the other session
functions, Spark version mismatches, Spark Connect refusals and explain() parsing (fake builders,
sessions and JVM; no Spark is started).
"""

from __future__ import annotations

import json

import pytest

import fastwindow
from fastwindow import FastWindowError, WindowReport
from fastwindow import _jar, _session
from python_api_fakes import FakeBuilder, FakeClassicSession, FakeConnectSession, _fake_jars

# Another test module may already run a SparkContext in this process; configure() then warns
# that static confs will not apply. That is expected here (no session is started from them).
pytestmark = pytest.mark.filterwarnings(
    r"ignore:fastwindow\.configure\(\). a SparkContext is already running:RuntimeWarning")


# --------------------------------------------------------------------------------------------
# configure()
# --------------------------------------------------------------------------------------------


def test_configure_adds_jar_and_extension():
    b = FakeBuilder()
    assert fastwindow.configure(b) is b
    assert b._options["spark.jars"] == fastwindow.jar_path()
    assert b._options["spark.sql.extensions"] == "fastwindow.FastWindowExtensions"


def test_configure_keeps_existing_values_without_duplicates():
    jar = fastwindow.jar_path()
    b = FakeBuilder(**{
        "spark.jars": "/opt/libs/a.jar, /opt/libs/b.jar",
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.extendedExplainProviders": "com.example.Explain",
    })
    fastwindow.configure(b)
    fastwindow.configure(b)  # twice: nothing is added again
    assert b._options["spark.jars"] == f"/opt/libs/a.jar,/opt/libs/b.jar,{jar}"
    assert b._options["spark.sql.extensions"] == (
        "io.delta.sql.DeltaSparkSessionExtension,fastwindow.FastWindowExtensions")
    providers = b._options["spark.sql.extendedExplainProviders"].split(",")
    assert providers[0] == "com.example.Explain"
    if _jar.has_class(_session.EXPLAIN_GENERATOR_CLASS):
        assert providers == ["com.example.Explain", _session.EXPLAIN_GENERATOR_CLASS]
    else:  # an unknown provider class would break df.explain(): only added when shipped
        assert providers == ["com.example.Explain"]


def test_configure_recognises_jar_given_as_file_uri():
    jar = fastwindow.jar_path()
    b = FakeBuilder(**{"spark.jars": f"file://{jar}",
                       "spark.sql.extensions": "fastwindow.FastWindowExtensions"})
    fastwindow.configure(b)
    assert b._options["spark.jars"] == f"file://{jar}"
    assert b._options["spark.sql.extensions"] == "fastwindow.FastWindowExtensions"


def test_configure_real_builder_without_starting_spark():
    from pyspark.sql import SparkSession

    b = SparkSession.Builder().config("spark.sql.extensions", "a.B").config("spark.jars", "/x.jar")
    fastwindow.configure(b)
    assert b._options["spark.sql.extensions"] == "a.B,fastwindow.FastWindowExtensions"
    assert b._options["spark.jars"] == "/x.jar," + fastwindow.jar_path()


def test_configure_builder_without_options_attribute():
    class Minimal:
        def __init__(self):
            self.seen = {}

        def config(self, key, value):
            self.seen[key] = value
            return self

    b = Minimal()
    fastwindow.configure(b)
    assert b.seen["spark.jars"] == fastwindow.jar_path()
    assert b.seen["spark.sql.extensions"] == "fastwindow.FastWindowExtensions"


def test_configure_warns_when_a_spark_context_already_runs(monkeypatch):
    import pyspark

    monkeypatch.setattr(pyspark.SparkContext, "_active_spark_context", object())
    with pytest.warns(RuntimeWarning, match=r"already running.*Call fastwindow\.enable\(spark\)"):
        fastwindow.configure(FakeBuilder())


# --------------------------------------------------------------------------------------------
# Spark version mismatch
# --------------------------------------------------------------------------------------------


def test_configure_rejects_a_spark_line_without_a_jar(monkeypatch):
    monkeypatch.setattr(_session, "_pyspark_version", lambda: "3.4.1")
    with pytest.raises(FastWindowError) as err:
        fastwindow.configure(FakeBuilder())
    msg = str(err.value)
    assert "fastwindow.configure(): " in msg and "no jar for Spark 3.4.1" in msg
    # It names the lines it has, so the user knows what to run instead.
    for line, scala in fastwindow.bundled_jars():
        assert line in msg and f"Scala {scala}" in msg


def test_configure_picks_the_jar_of_the_pyspark_line(monkeypatch, tmp_path):
    jars = _fake_jars(monkeypatch, tmp_path, ["4.2", "4.3"])
    monkeypatch.setattr(_session, "_pyspark_version", lambda: "4.2.1")
    b = fastwindow.configure(FakeBuilder())
    assert b._options["spark.jars"] == str(jars["4.2"])


def test_configure_accepts_other_patch_release(monkeypatch):
    major, minor = fastwindow.built_for_spark().split(".")[:2]
    monkeypatch.setattr(_session, "_pyspark_version", lambda: f"{major}.{minor}.99")
    b = fastwindow.configure(FakeBuilder())
    assert "fastwindow.FastWindowExtensions" in b._options["spark.sql.extensions"]


def test_enable_rejects_other_spark_minor_before_touching_the_jvm():
    session = FakeClassicSession("3.4.4")
    with pytest.raises(FastWindowError, match=r"fastwindow\.enable\(\): .*no jar for Spark 3\.4\.4"):
        fastwindow.enable(session)
    assert session.conf.values == {}


# --------------------------------------------------------------------------------------------
# Spark Connect
# --------------------------------------------------------------------------------------------


def _assert_connect_message(msg: str) -> None:
    assert "Spark Connect" in msg
    assert "local JVM" in msg
    assert f"--jars {fastwindow.jar_path()}" in msg
    assert "--conf spark.sql.extensions=fastwindow.FastWindowExtensions" in msg


@pytest.mark.parametrize("fn", [fastwindow.enable, fastwindow.disable, fastwindow.is_enabled])
@pytest.mark.parametrize("session", [object(), FakeConnectSession()],
                         ids=["plain-object", "connect-like"])
def test_connect_session_is_refused_with_server_side_config(fn, session):
    with pytest.raises(FastWindowError) as err:
        fn(session)
    _assert_connect_message(str(err.value))
    assert f"fastwindow.{fn.__name__}()" in str(err.value)


@pytest.mark.parametrize("fn", [fastwindow.explain, fastwindow.explain_string])
def test_connect_dataframe_is_refused(fn):
    class ConnectDataFrame:
        sparkSession = FakeConnectSession()

    with pytest.raises(FastWindowError) as err:
        fn(ConnectDataFrame())
    _assert_connect_message(str(err.value))


@pytest.mark.parametrize("fn", [fastwindow.explain, fastwindow.explain_string])
def test_explain_of_a_session_asks_for_a_dataframe(fn):
    """A session where a DataFrame was meant: not mistaken for a Spark Connect session."""
    for session, got in ((FakeClassicSession("4.3.0"), "FakeClassicSession"),
                         (FakeConnectSession(), "FakeConnectSession"), ("x", "str")):
        with pytest.raises(FastWindowError, match=r"takes a DataFrame") as err:
            fn(session)
        assert got in str(err.value) and "Spark Connect" not in str(err.value)


def test_configure_of_something_else_names_what_it_takes():
    with pytest.raises(FastWindowError, match=r"takes a SparkSession\.Builder .* got str"):
        fastwindow.configure("x")


def test_configure_refuses_remote_builder():
    with pytest.raises(FastWindowError) as err:
        fastwindow.configure(FakeBuilder(**{"spark.remote": "sc://spark-server:15002"}))
    _assert_connect_message(str(err.value))
    assert "spark.remote=sc://spark-server:15002" in str(err.value)


def test_real_connect_session_class_is_refused():
    try:
        from pyspark.sql.connect.session import SparkSession as ConnectSession
    except Exception as exc:  # grpc & co. are optional
        pytest.skip(f"Spark Connect client not importable: {exc}")
    session = ConnectSession.__new__(ConnectSession)  # no server needed
    with pytest.raises(FastWindowError) as err:
        fastwindow.enable(session)
    _assert_connect_message(str(err.value))


# --------------------------------------------------------------------------------------------
# explain() parsing (the JVM side is faked)
# --------------------------------------------------------------------------------------------

EXPLAIN_JSON = json.dumps([
    {"operator": "FastWindow", "fastwindow": True,
     "windowExpressions": ["row_number() OVER (...) AS rn", "sum(v) OVER (...) AS s"],
     "partitionSpec": ["k"], "orderSpec": ["v ASC NULLS FIRST"], "reason": None},
    {"operator": "Window", "fastwindow": False,
     "windowExpressions": ["percentile(v, 0.5) OVER (...) AS p"],
     "partitionSpec": [], "orderSpec": [],
     "reason": "percentile over a moving RANGE frame is not supported yet"},
])


def test_explain_parses_reports(monkeypatch):
    class FakeApi:
        def explainJson(self, jdf):
            assert jdf == "jdf"
            return EXPLAIN_JSON

        def explainString(self, jdf):
            return "FastWindow ...\nWindow ..."

    class FakeDataFrame:
        _jdf = "jdf"
        sparkSession = FakeClassicSession(fastwindow.built_for_spark())

    monkeypatch.setattr(_session, "_api", lambda spark, add_jar: FakeApi())
    reports = fastwindow.explain(FakeDataFrame())
    assert [r.operator for r in reports] == ["FastWindow", "Window"]
    fast, spark = reports
    assert fast == WindowReport("FastWindow", True,
                                ("row_number() OVER (...) AS rn", "sum(v) OVER (...) AS s"),
                                ("k",), ("v ASC NULLS FIRST",), None)
    assert spark.fastwindow is False and spark.partition_spec == ()
    assert "not supported yet" in spark.reason
    text = str(fast)
    assert text.startswith("FastWindow (fastwindow): PARTITION BY k ORDER BY v ASC NULLS FIRST")
    assert "sum(v) OVER (...) AS s" in text
    assert "not accelerated: percentile over a moving RANGE frame" in str(spark)
    with pytest.raises(Exception):
        fast.operator = "x"  # frozen
    assert fastwindow.explain_string(FakeDataFrame()).startswith("FastWindow")
