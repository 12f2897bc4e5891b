"""A varied window workload run where users run fastwindow: on a cluster, or behind Spark Connect.

    spark-submit --master local-cluster[2,1,1024] --jars JAR \
        --conf spark.sql.extensions=fastwindow.FastWindowExtensions deployment_app.py submit
                                          # a classic session on a cluster, the jar shipped by
                                          # --jars (no fastwindow Python code at all)
    python deployment_app.py connect URL  # a Spark Connect client (sc://host:port) of a server
                                          # started with the jar and the extension

For every query of QUERIES with ANSI off, and the overflowing one with ANSI on too (its error
crosses from an executor; ANSI's other answers are the differential suite's), with
spark.fastwindow.exactFloats on, it runs the query with spark.fastwindow.enabled true and false, checks the two collected results with chispa (same rows, order ignored: both
sorted alike here rather than by two more cluster jobs) and reads the plan
the way that kind of user does (``df.explain()`` on Connect). It prints one line
``FWRESULT <json>`` for tests/test_deployments.py: per query and ANSI setting, whether the plan
ran FastWindow, whether Spark's Window ran, and whether the results were equal.
"""

import contextlib
import io
import json
import sys

from chispa.rows_comparer import assert_basic_rows_equality
from pyspark.sql import SparkSession

DATA = """(SELECT id, id % 13 AS p, (id * 37) % 101 AS v, CAST(id % 17 AS DOUBLE) / 4 AS d,
                  CASE WHEN id % 11 = 0 THEN NULL ELSE (id * 7) % 23 END AS n
           FROM range(0, 4000, 1, 4)) t"""

#: Every family: ranking, offsets, aggregates over whole / running / moving / RANGE frames,
#: distinct counts and percentiles.
QUERIES = {
    # row_number and ntile over a total order (over ties they may number rows either way).
    "ranking": f"""SELECT id, row_number() OVER t AS rn, ntile(4) OVER t AS nt, rank() OVER w AS rk,
        dense_rank() OVER w AS dr, percent_rank() OVER w AS pr, cume_dist() OVER w AS cd
        FROM {DATA} WINDOW w AS (PARTITION BY p ORDER BY v), t AS (PARTITION BY p ORDER BY v, id)""",
    "offsets": f"""SELECT id, lag(v) OVER w AS lg, lead(n, 2, -1) OVER w AS ld,
        lag(d, 3) OVER w AS lg3 FROM {DATA} WINDOW w AS (PARTITION BY p ORDER BY id)""",
    "whole": f"""SELECT id, sum(v) OVER (PARTITION BY p) AS s, max(d) OVER (PARTITION BY p) AS mx,
        count(n) OVER (PARTITION BY p) AS c FROM {DATA}""",
    "running": f"""SELECT id, sum(v) OVER w AS s, avg(n) OVER w AS a, min(d) OVER w AS mn
        FROM {DATA} WINDOW w AS (PARTITION BY p ORDER BY id)""",
    "moving": f"""SELECT id, sum(v) OVER w AS s, avg(d) OVER w AS a, max(n) OVER w AS mx,
        stddev(v) OVER w AS sd FROM {DATA}
        WINDOW w AS (PARTITION BY p ORDER BY id ROWS BETWEEN 5 PRECEDING AND 2 FOLLOWING)""",
    "range": f"""SELECT id, count(*) OVER w AS c, sum(n) OVER w AS s FROM {DATA}
        WINDOW w AS (PARTITION BY p ORDER BY v RANGE BETWEEN 10 PRECEDING AND 5 FOLLOWING)""",
    # count(DISTINCT) is rewritten by the extension's analyzer rule, in the driver (or server).
    "distinct": f"""SELECT id, count(DISTINCT v % 10) OVER w AS cd, size(collect_set(n) OVER w) AS ss,
        percentile(d, 0.5) OVER w AS md FROM {DATA}
        WINDOW w AS (PARTITION BY p ORDER BY id ROWS BETWEEN 20 PRECEDING AND CURRENT ROW)""",
    "overflow": f"""SELECT id, sum(CAST(v AS BIGINT) * 90000000000000000) OVER
        (PARTITION BY p ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s FROM {DATA}""",
    # No PARTITION BY, spread over ranges of id (spark.fastwindow.acrossTasks.enabled, set in
    # check): seeds and halo rows made on the driver and shipped to executor JVMs.
    "across_tasks": f"""SELECT id, row_number() OVER w AS rn, sum(v) OVER w AS s,
        lag(n, 2) OVER w AS lg, avg(d) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING)
        AS a, sum(n) OVER (ORDER BY id RANGE BETWEEN 50 PRECEDING AND 10 FOLLOWING) AS r
        FROM {DATA} WINDOW w AS (ORDER BY id)""",
    # Planned across tasks, but its RANGE frame reaches 1,500 rows back, more than the summaries
    # keep (spark.fastwindow.acrossTasks.maxHaloRows, 100 here): the first task reads every range,
    # read from the executors' shuffle output (and the running sum above it stays spread).
    "across_tasks_in_one": f"""SELECT id, count(n) OVER (ORDER BY id RANGE BETWEEN 1500 PRECEDING
        AND CURRENT ROW) AS c, sum(v) OVER (ORDER BY id) AS s FROM {DATA}""",
    # A key with half of the rows split over ranges (spark.fastwindow.acrossTasks.skewedKeys,
    # set in check): the other keys' rows hashed whole to their tasks.
    "skewed_keys": f"""SELECT id, row_number() OVER w AS rn, sum(v) OVER w AS s, lag(n) OVER w AS lg
        FROM {DATA} WINDOW w AS (PARTITION BY CASE WHEN id % 2 = 0 THEN -1 ELSE p END ORDER BY id)""",
}


def explained(df) -> str:
    """The physical plan as ``df.explain()`` prints it (what a Connect user sees)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        df.explain()
    return out.getvalue()


def outcome(spark, sql, enabled):
    """(plan text, collected rows or None, error or None) with fastwindow on or off."""
    spark.conf.set("spark.fastwindow.enabled", enabled)
    df = spark.sql(sql)
    try:
        rows = df.collect()
    except Exception as exc:  # noqa: BLE001 - the error itself is the result to compare
        return explained(df), None, type(exc).__name__ + ": " + str(exc).splitlines()[0][:200]
    return explained(df), rows, None


def check(spark):
    # Bit-exact floats (Spark's summation order on sliding frames), so that chispa's exact
    # comparison applies to averages and deviations too; the default's tolerance is covered by
    # the differential suite.
    spark.conf.set("spark.fastwindow.exactFloats", "true")
    spark.conf.set("spark.fastwindow.acrossTasks.enabled", "true")
    spark.conf.set("spark.fastwindow.acrossTasks.minInputSize", "0")  # 4,000 rows spread too
    spark.conf.set("spark.fastwindow.acrossTasks.maxHaloRows", "100")
    spark.conf.set("spark.fastwindow.acrossTasks.skewedKeys", "true")
    spark.conf.set("spark.fastwindow.acrossTasks.skewedKeys.minInputSize", "0")
    spark.conf.set("spark.sql.adaptive.coalescePartitions.enabled", "false")  # keep the ranges
    spark.conf.set("spark.sql.shuffle.partitions", "4")
    results = []
    for ansi, names in (("false", list(QUERIES)), ("true", ["overflow"])):
        spark.conf.set("spark.sql.ansi.enabled", ansi)
        for name in names:
            sql = QUERIES[name]
            plan_on, rows_on, error_on = outcome(spark, sql, "true")
            plan_off, rows_off, error_off = outcome(spark, sql, "false")
            equal, detail = error_on == error_off, None
            if rows_on is not None and rows_off is not None:
                try:
                    assert_basic_rows_equality(sorted(rows_on, key=repr),
                                               sorted(rows_off, key=repr))
                except Exception as exc:  # noqa: BLE001 - chispa's DataFramesNotEqualError
                    equal, detail = False, str(exc)[:2000]
            results.append({
                "query": name, "ansi": ansi, "equal": equal, "detail": detail,
                "error": error_on, "error_off": error_off,
                "fastwindow_on": "FastWindow" in plan_on,
                "across_tasks": "across tasks: ranges" in plan_on,
                "skewed_keys": "skewed keys' rows split" in plan_on,
                "window_off": "Window" in plan_off and "FastWindow" not in plan_off,
                "comet_on": "Comet" in plan_on,  # a session started with DataFusion Comet
                "plan_on": None if "FastWindow" in plan_on else plan_on,
            })
    spark.conf.set("spark.fastwindow.enabled", "true")
    return results


def refused_settings(spark):
    """The errors of a bad fastwindow value set by spark.conf.set and by SET (checked on the
    server when set), and whether a query runs after them."""
    errors = []
    for set_it in (lambda: spark.conf.set("spark.fastwindow.enabled", "maybe"),
                   lambda: spark.sql("SET spark.fastwindow.enabled=maybe").collect()):
        try:
            set_it()
            errors.append(None)
        except Exception as exc:  # noqa: BLE001 - the error is the result
            errors.append(str(exc).splitlines()[0][:300])
    return {"errors": errors, "select_1": spark.sql("select 1 as one").collect()[0].one}


def main(mode, *args):
    info = {}
    if mode == "submit":
        spark = SparkSession.builder.appName("fastwindow-deployment").getOrCreate()
        spark.conf.set("spark.sql.shuffle.partitions", "4")
    elif mode == "connect":
        (url,) = args
        spark = SparkSession.builder.remote(url).getOrCreate()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            spark.sql(QUERIES["ranking"]).explain(extended=True)
        info["extended_explain"] = out.getvalue()
        info["bad_setting"] = refused_settings(spark)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    info.update(spark=spark.version, results=check(spark))
    if mode == "submit":
        # The block managers of the driver and of each executor JVM that ran tasks.
        info["executors"] = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1
    print("FWRESULT " + json.dumps(info), flush=True)
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
