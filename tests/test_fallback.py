"""What fastwindow does not run stays on Spark, with a reason a user can act on."""

import fastwindow
import pytest
from helpers import SPARK_LINE, WINDOW_FILTER, assert_falls_back, run

UNSUPPORTED = {
    "unsupported_aggregate": (
        "select p, id, count_min_sketch(i, 0.1d, 0.9d, 1) over (partition by p) s from t",
        "aggregate function count_min_sketch is not supported yet"),
    "interval_percentile": (
        "select p, id, percentile(make_dt_interval(i % 5), 0.5) over (partition by p) s from t",
        "percentile of type INTERVAL DAY TO SECOND is not supported"),
    "array_min": (
        "select p, id, max(arr) over (partition by p) s from t",
        "max of type ARRAY<INT> is not supported"),
}


if WINDOW_FILTER:
    UNSUPPORTED["filter_on_unsupported_aggregate"] = (
        "select p, id, count_min_sketch(i, 0.1d, 0.9d, 1) filter (where i > 0) over (partition by p) s "
        "from t",
        "aggregate function count_min_sketch is not supported yet")


@pytest.mark.parametrize("case", sorted(UNSUPPORTED))
def test_unsupported_falls_back_with_reason(spark, case):
    query, reason = UNSUPPORTED[case]
    assert_falls_back(spark, query, reason)


def test_one_unsupported_function_keeps_the_whole_node_on_spark(spark):
    # Same PARTITION BY and ORDER BY (frames may differ), hence one node: it must not be split.
    query = """select p, id, row_number() over (partition by p order by id) rn,
                 count_min_sketch(i, 0.1d, 0.9d, 1) over (partition by p order by id) s
               from t"""
    fast = run(spark, query, fastwindow_on=True)
    assert [r.operator for r in fast.reports] == ["Window"]
    assert_falls_back(spark, query, "aggregate function count_min_sketch is not supported yet")


def test_other_nodes_of_the_query_still_run_on_fastwindow(spark):
    query = """select p, id, row_number() over (partition by p order by id) rn,
                 count_min_sketch(i, 0.1d, 0.9d, 1) over (partition by g order by id) s
               from t"""
    fast = run(spark, query, fastwindow_on=True)
    assert sorted(r.operator for r in fast.reports) == ["FastWindow", "Window"]
    assert_falls_back(spark, query, "aggregate function count_min_sketch is not supported yet")


def test_disabled_session_runs_on_spark(spark):
    spark.conf.set("spark.fastwindow.enabled", "false")
    df = spark.sql("select p, id, row_number() over (partition by p order by id) rn from t")
    df.collect()
    reports = fastwindow.explain(df)
    assert [r.operator for r in reports] == ["Window"]
    assert "spark.fastwindow.enabled=false" in reports[0].reason


def test_explain_reports_fastwindow_nodes(spark):
    df = spark.sql("select p, id, rank() over (partition by p order by i) r from t")
    reports = fastwindow.explain(df)
    assert len(reports) == 1 and reports[0].fastwindow and reports[0].reason is None
    assert "FastWindow" in fastwindow.explain_string(df)
    assert "FastWindow" in df._jdf.queryExecution().executedPlan().toString()


def test_explain_finds_windows_inside_subqueries(spark):
    """A window in a scalar subquery (or an IN subquery) runs on FastWindow, and the report says
    so, before and after the query runs."""
    df = spark.sql("""
        select p, id,
               (select max(rn) from (select row_number() over (partition by p order by id) rn
                                     from t)) as top,
               id in (select rank() over (order by i) from t) as ranked
        from t""")
    for _ in range(2):
        reports = fastwindow.explain(df)
        assert [r.operator for r in reports] == ["FastWindow", "FastWindow"], reports
        df.collect()


@pytest.mark.skipif(SPARK_LINE < (4, 0), reason="spark.sql.extendedExplainProviders exists from "
                    "Spark 4.0; on 3.5 fastwindow.explain(df) and the log give the report")
def test_extended_explain_shows_the_report(spark):
    df = spark.sql("select p, id, count_min_sketch(i, 0.1d, 0.9d, 1) over (partition by p order by "
                   "id) s from t")
    text = spark._jvm.PythonSQLUtils.explainString(df._jdf.queryExecution(), "extended")
    assert "fastwindow" in text and "not supported yet" in text


def test_python_udf_windows_are_left_to_spark(spark):
    import pandas as pd
    from pyspark.sql.functions import pandas_udf
    from pyspark.sql.window import Window

    @pandas_udf("double")
    def mean_udf(v: pd.Series) -> float:
        return float(v.mean())

    def query(s):
        df = s.table("t").select("p", "id", "l")
        return df.withColumn("m", mean_udf("l").over(Window.partitionBy("p")))

    fast = run(spark, query, fastwindow_on=True)
    assert fast.reports and all(not r.fastwindow for r in fast.reports)
    assert "Python" in fast.reports[0].reason

