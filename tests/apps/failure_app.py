"""Windows spread over tasks on a cluster whose tasks fail and whose executors are lost.

    spark-submit --master local-cluster[2,1,1024] --jars JAR \
        --conf spark.sql.extensions=fastwindow.FastWindowExtensions failure_app.py MARKERS

A window without PARTITION BY runs across tasks: the map tasks summarise the ranges, the driver
seeds each range, the window's tasks read their ranges and halo rows. Each case below injects one
failure with a Python function that fails once per query (a marker file in MARKERS, the same
machine's disk, records that it fired): a task of the window's stage, a map task of the range
shuffle, and an executor killed (its JVM, with the map outputs it held) while the window's stage
runs, which makes Spark run the lost map tasks again. Spark retries each; the answer must be the
one the same query gives with fastwindow off and no failure. It prints ``FWRESULT <json>`` for
tests/test_deployments.py: per case, whether it ran across tasks, whether the failure fired and
whether the rows were equal.
"""

import json
import os
import signal
import sys

from chispa.rows_comparer import assert_basic_rows_equality
from pyspark.sql import SparkSession
from pyspark.sql.types import LongType

DATA = """(SELECT id, (id * 37) % 101 AS v, CAST(id % 17 AS DOUBLE) / 4 AS d,
                  CASE WHEN id % 11 = 0 THEN NULL ELSE (id * 7) % 23 END AS n
           FROM range(0, 20000, 1, 4)) t"""

WINDOW = """row_number() OVER w AS rn, sum(v) OVER w AS s, lag(n, 2) OVER w AS lg,
            sum(v) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 3 FOLLOWING) AS m"""

#: The row whose evaluation fails (in the middle of the input: a middle range's task).
FAILING_ID = 12345

CASES = {
    # The window's stage: the function is evaluated above the window, in its tasks.
    "window_task_fails": f"""SELECT *, fail_once(id, 'window_task_fails') AS f
        FROM (SELECT id, {WINDOW} FROM {DATA} WINDOW w AS (ORDER BY id))""",
    # The range shuffle's map stage: the function is evaluated below the window.
    "map_task_fails": f"""SELECT id, g, {WINDOW}
        FROM (SELECT *, fail_once(id, 'map_task_fails') AS g FROM {DATA}) WINDOW w AS (ORDER BY id)""",
    # The window's stage loses an executor, and with it the map outputs it held.
    "executor_lost": f"""SELECT *, fail_once(id, 'executor_lost') AS f
        FROM (SELECT id, {WINDOW} FROM {DATA} WINDOW w AS (ORDER BY id))""",
}


def executor_jvm() -> int:
    """The pid of the JVM above this Python worker (worker, daemon, executor)."""
    pid = os.getpid()
    while pid > 1:
        with open(f"/proc/{pid}/comm") as comm:
            if comm.read().strip() == "java":
                return pid
        with open(f"/proc/{pid}/stat") as stat:
            pid = int(stat.read().rsplit(")", 1)[1].split()[1])
    raise RuntimeError("no JVM above this Python worker")


def fail_once_function(markers: str):
    def fail_once(row_id, case):
        armed = os.path.join(markers, case + ".armed")
        if row_id != FAILING_ID or not os.path.exists(armed):
            return row_id
        try:
            os.close(os.open(os.path.join(markers, case + ".fired"), os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return row_id
        if case == "executor_lost":
            os.kill(executor_jvm(), signal.SIGKILL)
        raise RuntimeError(f"fastwindow test: {case} fails once")
    return fail_once


def main(markers):
    spark = SparkSession.builder.appName("fastwindow-failures").getOrCreate()
    spark.udf.register("fail_once", fail_once_function(markers), LongType())
    for key, value in {"spark.fastwindow.acrossTasks.enabled": "true",
                       "spark.fastwindow.acrossTasks.minInputSize": "0",
                       "spark.sql.adaptive.coalescePartitions.enabled": "false",
                       "spark.sql.shuffle.partitions": "4"}.items():
        spark.conf.set(key, value)
    results = []
    for case, sql in CASES.items():
        spark.conf.set("spark.fastwindow.enabled", "false")
        expected = spark.sql(sql).collect()  # not armed: no failure
        spark.conf.set("spark.fastwindow.enabled", "true")
        open(os.path.join(markers, case + ".armed"), "w").close()
        df = spark.sql(sql)
        error, equal = None, False
        try:
            rows = df.collect()
            assert_basic_rows_equality(sorted(rows, key=repr), sorted(expected, key=repr))
            equal = True
        except Exception as exc:  # noqa: BLE001 - the error is the result
            error = type(exc).__name__ + ": " + str(exc)[:2000]
        os.remove(os.path.join(markers, case + ".armed"))
        plan = df._jdf.queryExecution().executedPlan().toString()
        results.append({"case": case, "equal": equal, "error": error, "rows": len(expected),
                        "fired": os.path.exists(os.path.join(markers, case + ".fired")),
                        "across_tasks": "across tasks: ranges" in plan})
    print("FWRESULT " + json.dumps({"results": results}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
