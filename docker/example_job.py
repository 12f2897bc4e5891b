"""fastwindow example job: per-customer transaction features computed with window functions.

It generates card transactions with ``spark.range`` (no input files), computes for every
customer, ordered by time, ``row_number``, ``lag``, a running total, a sessionisation (a running
sum over the output of another window), whole-customer ``avg``/``count`` and a ``dense_rank`` by
amount, then checks the deployment:

1. every window operator of the query runs on FastWindow (``fastwindow.explain``);
2. the rows are the same as with ``spark.fastwindow.enabled=false``, i.e. Spark's own Window.

It exits 0 when both hold and 1 otherwise, so it doubles as a smoke test.

Run it

* with spark-submit, where the cluster or the command line enables fastwindow (the
  fastwindow-spark image does it in ``$SPARK_HOME/jars`` + ``spark-defaults.conf``)::

      spark-submit --master spark://spark-master:7077 example_job.py
      spark-submit --jars "$(python -m fastwindow jar)" \\
          --conf spark.sql.extensions=fastwindow.FastWindowExtensions example_job.py

* as a plain Python program on ``local[2]``: ``python example_job.py --local``; the session is
  built with ``fastwindow.configure()``, which adds the bundled jar and the extension.

Either way the driver's Python needs the fastwindow package (``pip install fastwindow``).
"""

from __future__ import annotations

import argparse
import sys

import fastwindow
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

SESSION_GAP_SECONDS = 30 * 60
CATEGORIES = ["grocery", "fuel", "dining", "travel", "electronics", "pharmacy"]


def transactions(spark: SparkSession, rows: int) -> DataFrame:
    """Deterministic pseudo-random transactions, about 100 per customer."""
    customers = max(1, rows // 100)

    def rnd(salt: int, n: int):
        return F.pmod(F.xxhash64("id", F.lit(salt)), F.lit(n))

    return spark.range(rows).select(
        F.col("id").alias("txn_id"),
        rnd(1, customers).alias("customer_id"),
        # A customer buys about every 50 minutes, with up to an hour of jitter.
        F.timestamp_seconds(
            F.lit(1_735_689_600) + (F.col("id") * 3000 / customers).cast("long") + rnd(2, 3600)
        ).alias("ts"),
        (rnd(3, 250_000).cast("decimal(10,2)") / 100).cast("decimal(10,2)").alias("amount"),
        F.array(*map(F.lit, CATEGORIES))[rnd(4, len(CATEGORIES)).cast("int")].alias("category"),
    )


def features(txns: DataFrame) -> DataFrame:
    by_time = Window.partitionBy("customer_id").orderBy("ts", "txn_id")
    running = by_time.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    customer = Window.partitionBy("customer_id")
    by_amount = Window.partitionBy("customer_id").orderBy(F.col("amount").desc())

    gap = F.unix_seconds("ts") - F.unix_seconds(F.lag("ts").over(by_time))
    return (
        txns.select(
            "*",
            F.row_number().over(by_time).alias("txn_seq"),
            (F.col("amount") - F.lag("amount").over(by_time)).alias("amount_change"),
            F.sum("amount").over(running).alias("running_total"),
            # 1 when the gap to the previous transaction exceeds 30 minutes (or there is none)
            F.coalesce(gap > SESSION_GAP_SECONDS, F.lit(True)).cast("int").alias("new_session"),
            F.avg("amount").over(customer).alias("customer_avg"),
            F.count("*").over(customer).alias("customer_txns"),
            F.dense_rank().over(by_amount).alias("amount_rank"),
        )
        # A window over the output of the windows above: sessionisation.
        .withColumn("session_id", F.sum("new_session").over(running))
        .drop("new_session")
    )


def checksum(df: DataFrame):
    """(rows, sum of 64-bit row hashes): equal for equal multisets of rows, in any order."""
    row_hash = F.xxhash64(*df.columns).cast("decimal(38,0)")
    return tuple(df.agg(F.count("*"), F.sum(row_hash)).first())


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="fastwindow example job and deployment check")
    p.add_argument("--local", action="store_true",
                   help="run on local[2] with a session from fastwindow.configure() (a plain "
                        "`python` run; under spark-submit leave it out)")
    p.add_argument("--rows", type=int, default=50_000, help="transactions (default 50000)")
    args = p.parse_args(argv)

    builder = SparkSession.builder.appName("fastwindow-example")
    if args.local:
        builder = fastwindow.configure(
            builder.master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2"))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    print(f"Spark {spark.version} on {spark.sparkContext.master}, fastwindow "
          f"{fastwindow.__version__}")

    try:
        feats = features(transactions(spark, args.rows))
        try:
            reports = fastwindow.explain(feats)
        except fastwindow.FastWindowError as exc:  # the jar is not loaded at all
            print(exc, file=sys.stderr)
            reports = []
        print("\nwindow operators:")
        for report in reports:
            print(report)
        if not reports or not all(r.fastwindow for r in reports):
            print("\nFAILED: fastwindow does not run this query's windows. Is the fastwindow jar "
                  "on the driver and executor classpath, spark.sql.extensions="
                  "fastwindow.FastWindowExtensions set, and spark.fastwindow.enabled not false?",
                  file=sys.stderr)
            return 1

        print("\ncustomer 0:")
        feats.where("customer_id = 0").orderBy("txn_seq").show(5)

        fast = checksum(feats)
        # The same query again, planned with Spark's own Window operator. (A new DataFrame: one
        # that was planned already keeps its plan.)
        spark.conf.set("spark.fastwindow.enabled", "false")
        plain_feats = features(transactions(spark, args.rows))
        if any(r.fastwindow for r in fastwindow.explain(plain_feats)):
            print("\nFAILED: spark.fastwindow.enabled=false did not switch fastwindow off",
                  file=sys.stderr)
            return 1
        plain = checksum(plain_feats)
        if fast != plain:
            print(f"\nFAILED: results differ from Spark's Window: (rows, hash sum) {fast} with "
                  f"fastwindow, {plain} without", file=sys.stderr)
            return 1
        print(f"OK: {len(reports)} window operators ran on FastWindow; same {fast[0]} rows as "
              "Spark's own Window operator")
        return 0
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main())
