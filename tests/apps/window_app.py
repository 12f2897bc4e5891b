"""A tiny window job used by tests/test_entry_routes.py, one Spark application per process.

    python window_app.py enable      # a session built WITHOUT the jar, then fastwindow.enable()
    spark-submit --jars JAR --conf spark.sql.extensions=fastwindow.FastWindowExtensions \
        window_app.py submit         # no fastwindow Python code at all

It runs one window query (row_number + running sums) with spark.fastwindow.enabled=true, then the
same query with it false, and prints one line ``FWRESULT <json>`` with both physical plans and
both (sorted) results for the test to check.
"""

import json
import sys

from pyspark.sql import SparkSession

QUERY = """
SELECT id, k, v,
       row_number() OVER (PARTITION BY k ORDER BY v, id) AS rn,
       sum(v) OVER (PARTITION BY k ORDER BY v, id
                    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_rows,
       sum(v) OVER (PARTITION BY k ORDER BY v) AS running_range
FROM (SELECT id, id % 7 AS k, (id * 37) % 101 AS v FROM range(0, 3000, 1, 2))
"""


#: The JIT's first tier only: the application lives seconds, too short for the optimizing tier.
FIRST_TIER = "-XX:TieredStopAtLevel=1"


def plan_of(df):
    return df._jdf.queryExecution().executedPlan().toString()


def run(spark):
    df = spark.sql(QUERY)
    plan = plan_of(df)
    rows = sorted(tuple(r) for r in df.collect())
    return plan, rows


def main(route):
    builder = (
        SparkSession.builder.appName(f"fastwindow-route-{route}")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
    )
    if route != "submit":  # (spark-submit starts the JVM with the test's options)
        builder = builder.master("local[1]").config("spark.driver.extraJavaOptions", FIRST_TIER)
    out = {"route": route}
    if route == "enable":
        import fastwindow

        spark = builder.getOrCreate()
        jvm = spark._jvm
        try:
            jvm.java.lang.Class.forName(
                "fastwindow.FastWindow", True,
                jvm.java.lang.Thread.currentThread().getContextClassLoader())
            out["loadable_before"] = True
        except Exception:
            out["loadable_before"] = False
        out["is_enabled_before"] = fastwindow.is_enabled(spark)
        fastwindow.enable(spark)
        fastwindow.enable(spark)  # idempotent
        out["is_enabled"] = fastwindow.is_enabled(spark)
    elif route == "submit":
        spark = builder.getOrCreate()
    else:
        raise SystemExit(f"unknown route {route!r}")
    spark.sparkContext.setLogLevel("ERROR")

    spark.conf.set("spark.fastwindow.enabled", "true")
    out["plan_on"], rows_on = run(spark)
    spark.conf.set("spark.fastwindow.enabled", "false")
    out["plan_off"], rows_off = run(spark)
    out["rows"] = len(rows_on)
    out["equal"] = rows_on == rows_off
    if not out["equal"]:
        diff = [(a, b) for a, b in zip(rows_on, rows_off) if a != b][:5]
        out["first_differences"] = [[list(a), list(b)] for a, b in diff]
    spark.stop()
    print("FWRESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "configure")
