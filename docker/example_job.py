"""fastwindow example job: per-customer transaction features with SQL window functions.

A typical feature pipeline over a card-transactions table generated with ``spark.range`` (no input
files needed): for every customer, ordered by time,

* ``txn_seq``        row_number()                      -- position in the customer's history
* ``prev_amount``    lag(amount)                       -- previous transaction's amount
* ``amount_change``  amount - lag(amount)
* ``running_total``  sum(amount) ROWS UNBOUNDED PRECEDING .. CURRENT ROW
* ``session_id``     running sum of "gap to the previous transaction > 30 min" (sessionisation:
                     a window over the output of another window)
* ``customer_avg``   avg(amount) over the whole customer
* ``vs_avg``         amount / customer_avg
* ``amount_rank``    dense_rank() by amount, largest first

It prints which operator runs each window (``fastwindow.explain_string(df)``, or Spark's plan when
the fastwindow Python package is not installed), then writes a small per-session summary.

How to run it
-------------
On a cluster, through spark-submit (fastwindow configured by the image, spark-defaults.conf or
``--jars``/``--conf``; this script then only builds the session)::

    spark-submit --master spark://spark-master:7077 example_job.py --output /data/fastwindow-example
    spark-submit --jars "$(python -m fastwindow jar)" \\
        --conf spark.sql.extensions=fastwindow.FastWindowExtensions example_job.py

As a plain Python program (needs ``pip install fastwindow`` and a matching pyspark; the session is
built with ``fastwindow.configure()``, which adds the jar and the extension)::

    python example_job.py --local                         # local[2]
    SPARK_MASTER=spark://host:7077 python example_job.py   # or --master spark://host:7077

Exit codes: 0 ok; 1 fastwindow's results differ from Spark's (``--compare``); 3 no FastWindow
operator in the plan (``--expect-fastwindow``); 2 bad arguments.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

try:  # optional: the job also runs where only the jar was deployed
    import fastwindow
except ImportError:  # pragma: no cover - depends on the deployment
    fastwindow = None

ENABLED_KEY = "spark.fastwindow.enabled"
EXTENSIONS_CLASS = "fastwindow.FastWindowExtensions"

SESSION_GAP_SECONDS = 30 * 60
MERCHANT_CATEGORIES = ["grocery", "fuel", "dining", "travel", "electronics", "pharmacy"]


# ------------------------------------------------------------------------------------------
# arguments and session
# ------------------------------------------------------------------------------------------


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="fastwindow example: per-customer transaction features with window "
                    "functions, the plan that runs them, and a small written result.")
    p.add_argument("--local", action="store_true",
                   help="plain Python run on local[2] (the session is built with "
                        "fastwindow.configure(); needs the fastwindow package)")
    p.add_argument("--master", default=None,
                   help="master URL for a plain Python run (default: $SPARK_MASTER, else "
                        "Spark's default). Ignored under spark-submit, which sets the master.")
    p.add_argument("--rows", type=int, default=200_000, help="transactions (default 200000)")
    p.add_argument("--customers", type=int, default=2_000, help="customers (default 2000)")
    p.add_argument("--partitions", type=int, default=4,
                   help="partitions of the generated input (default 4)")
    p.add_argument("--output", default="fastwindow-example-output",
                   help="where to write the per-session summary: a local path shared by every "
                        "node, or hdfs://, s3a://, ... (default ./fastwindow-example-output)")
    p.add_argument("--format", choices=["parquet", "csv", "json"], default="parquet",
                   help="output format (default parquet)")
    p.add_argument("--no-write", action="store_true", help="do not write the summary")
    p.add_argument("--compare", action="store_true",
                   help="also run the pipeline with spark.fastwindow.enabled=false and check "
                        "that both give the same rows (exit 1 if not)")
    p.add_argument("--expect-fastwindow", action="store_true",
                   help="exit 3 when the plan has no FastWindow operator (a deployment check)")
    p.add_argument("--show-fallback", action="store_true",
                   help="also explain a window fastwindow does not run (a sliding 3-row "
                        "average) to show the reason it reports")
    args = p.parse_args(argv)
    if args.rows < 1 or args.customers < 1 or args.partitions < 1:
        p.error("--rows, --customers and --partitions must be positive")
    return args


def launched_by_spark_submit() -> bool:
    # spark-submit (and the pyspark shell) start the JVM first and hand its py4j gateway to
    # Python through these variables; a plain `python job.py` has neither.
    return "PYSPARK_GATEWAY_PORT" in os.environ


def build_session(args):
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("fastwindow-example")
    if launched_by_spark_submit():
        # The master, the jar and spark.sql.extensions come from spark-submit / spark-defaults.
        if args.local or args.master:
            print("note: --local/--master are ignored under spark-submit (use its --master)",
                  file=sys.stderr)
        how = "spark-submit"
    else:
        master = "local[2]" if args.local else (args.master or os.environ.get("SPARK_MASTER"))
        if master:
            builder = builder.master(master)
        if args.local:
            builder = (builder.config("spark.sql.shuffle.partitions", "4")
                       .config("spark.ui.showConsoleProgress", "false"))
        if fastwindow is None:
            sys.exit("error: a plain Python run needs the fastwindow package to add the jar "
                     "(pip install fastwindow), or run this job with spark-submit --jars ...")
        # Appends the bundled jar to spark.jars (shipped to executors) and the extension to
        # spark.sql.extensions; checks the jar was built for this pyspark's Spark minor.
        builder = fastwindow.configure(builder)
        how = f"fastwindow.configure(builder), master {master or 'default'}"
    spark = builder.getOrCreate()
    if not launched_by_spark_submit() and args.local:
        spark.sparkContext.setLogLevel("WARN")
    return spark, how


def activation_status(spark) -> str:
    extensions = spark.conf.get("spark.sql.extensions", "") or ""
    configured = EXTENSIONS_CLASS in [e.strip() for e in extensions.split(",")]
    switch = spark.conf.get(ENABLED_KEY, "true")
    parts = [f"spark.sql.extensions={extensions or '(unset)'}"
             + ("" if configured else f" (no {EXTENSIONS_CLASS})"),
             f"{ENABLED_KEY}={switch}"]
    if fastwindow is not None:
        try:
            parts.append(f"active={fastwindow.is_enabled(spark)}")
        except Exception as exc:  # e.g. a Connect session; keep the job going
            parts.append(f"active=? ({exc.__class__.__name__})")
    return ", ".join(parts)


# ------------------------------------------------------------------------------------------
# the pipeline
# ------------------------------------------------------------------------------------------


def transactions(spark, rows: int, customers: int, partitions: int):
    """Deterministic pseudo-random card transactions (same data on every run)."""
    from pyspark.sql import functions as F

    categories = F.array(*[F.lit(c) for c in MERCHANT_CATEGORIES])
    h = lambda salt: F.xxhash64(F.col("id"), F.lit(salt))  # noqa: E731
    return (
        spark.range(0, rows, 1, partitions)
        .select(
            F.col("id").alias("txn_id"),
            F.pmod(h(1), F.lit(customers)).alias("customer_id"),
            # About one transaction per customer every ~50 minutes, with jitter: gaps above
            # 30 minutes start a new session.
            F.timestamp_seconds(
                F.lit(1_735_689_600)
                + (F.col("id") * F.lit(3000.0 / customers)).cast("long")
                + F.pmod(h(2), F.lit(3600))
            ).alias("ts"),
            (F.pmod(h(3), F.lit(250_000)).cast("decimal(12,0)") / 100)
            .cast("decimal(12,2)").alias("amount"),
            F.element_at(categories, (F.pmod(h(4), F.lit(len(MERCHANT_CATEGORIES))) + 1)
                         .cast("int")).alias("category"),
        )
    )


def features(txns):
    """Per-transaction window features (see the module docstring)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    by_time = Window.partitionBy("customer_id").orderBy("ts", "txn_id")
    running = by_time.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    whole_customer = Window.partitionBy("customer_id")
    by_amount = Window.partitionBy("customer_id").orderBy(F.col("amount").desc())

    step1 = txns.select(
        "*",
        F.row_number().over(by_time).alias("txn_seq"),
        F.lag("amount").over(by_time).alias("prev_amount"),
        F.lag("ts").over(by_time).alias("prev_ts"),
        F.sum("amount").over(running).alias("running_total"),
        F.avg("amount").over(whole_customer).alias("customer_avg"),
        F.count("*").over(whole_customer).alias("customer_txns"),
        F.dense_rank().over(by_amount).alias("amount_rank"),
    )
    new_session = (F.col("prev_ts").isNull()
                   | ((F.unix_seconds("ts") - F.unix_seconds("prev_ts")) > SESSION_GAP_SECONDS))
    return (
        step1
        .withColumn("new_session", new_session.cast("int"))
        # A second window over the first one's output: sessionisation.
        .withColumn("session_id", F.sum("new_session").over(running))
        .withColumn("amount_change", F.col("amount") - F.col("prev_amount"))
        .withColumn("vs_avg", F.round(F.col("amount") / F.col("customer_avg"), 4))
        .drop("prev_ts", "new_session")
    )


def session_summary(feats):
    from pyspark.sql import functions as F

    return (
        feats.groupBy("customer_id", "session_id")
        .agg(F.min("ts").alias("session_start"),
             F.max("ts").alias("session_end"),
             F.count("*").alias("txns"),
             F.sum("amount").alias("amount"),
             F.max("running_total").alias("running_total_at_end"))
    )


def checksum(df):
    """An order-independent digest of every row: (rows, xor of row hashes, sum of hash buckets)."""
    from pyspark.sql import functions as F

    row_hash = F.xxhash64(*[F.col(c) for c in df.columns])
    row = df.select(row_hash.alias("h")).agg(
        F.count("*").alias("n"),
        F.bit_xor("h").alias("x"),
        F.sum(F.pmod("h", F.lit(1_000_003))).alias("s"),
    ).collect()[0]
    return int(row["n"]), int(row["x"] or 0), int(row["s"] or 0)


# ------------------------------------------------------------------------------------------
# reporting
# ------------------------------------------------------------------------------------------


def physical_plan(df) -> str:
    return df._jdf.queryExecution().executedPlan().toString()


def count_operators(plan: str):
    """(FastWindow operators, Spark Window operators) in a physical plan's text."""
    nodes = [line.lstrip(" :+-*()0123456789") for line in plan.splitlines()]
    return (sum(1 for n in nodes if n.startswith("FastWindow ")),
            sum(1 for n in nodes if n.startswith("Window ")))


def report(title: str, df):
    """Prints who runs each window operator of ``df``; returns (fastwindow, Spark) counts."""
    print(f"\n=== {title} ===")
    plan = physical_plan(df)
    if fastwindow is not None:
        try:
            print(fastwindow.explain_string(df))
            return count_operators(plan)
        except Exception as exc:  # e.g. the jar is not loaded in this session
            print(f"(fastwindow.explain_string unavailable: {exc})")
    else:
        print("(the fastwindow Python package is not installed: Spark's physical plan)")
    print(plan)
    return count_operators(plan)


def main(argv=None) -> int:
    args = parse_args(argv)
    spark, how = build_session(args)
    print(f"Spark {spark.version}, master {spark.sparkContext.master}; session via {how}")
    if fastwindow is not None:
        print(f"fastwindow package {fastwindow.__version__}")
    print("fastwindow status: " + activation_status(spark))

    txns = transactions(spark, args.rows, args.customers, args.partitions)
    feats = features(txns)
    fast, on_spark = report("window operators of the feature query", feats)
    print(f"\nFastWindow operators: {fast}; Spark Window operators: {on_spark}")

    if args.show_fallback:
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        sliding = Window.partitionBy("customer_id").orderBy("ts", "txn_id").rowsBetween(-2, 0)
        report("a window fastwindow leaves to Spark (sliding 3-row average)",
               txns.select("*", F.avg("amount").over(sliding).alias("avg_last_3")))

    print("\nsample (first customer):")
    feats.where("customer_id = 0").orderBy("txn_seq").show(8, truncate=False)

    if not args.no_write:
        start = time.monotonic()
        summary = session_summary(feats)
        summary.coalesce(1).write.mode("overwrite").format(args.format) \
            .option("header", "true").save(args.output)
        written = spark.read.format(args.format).option("header", "true") \
            .option("inferSchema", "true").load(args.output).count()
        print(f"wrote {written} customer sessions to {args.output} ({args.format}) in "
              f"{time.monotonic() - start:.1f} s")

    status = 0
    if args.compare:
        previous = spark.conf.get(ENABLED_KEY, "true")
        try:
            spark.conf.set(ENABLED_KEY, "true")
            on = checksum(features(txns))
            spark.conf.set(ENABLED_KEY, "false")
            off_df = features(txns)
            off_fast, _ = count_operators(physical_plan(off_df))
            off = checksum(off_df)
        finally:
            spark.conf.set(ENABLED_KEY, previous)
        same = on == off
        print(f"\ncompare with {ENABLED_KEY}=false (FastWindow operators then: {off_fast}): "
              f"{'same rows' if same else 'RESULTS DIFFER'} (rows, xor, sum) on={on} off={off}")
        if not same:
            status = 1

    if args.expect_fastwindow and fast == 0:
        print("\nERROR: no FastWindow operator in the plan. fastwindow is not active: check that "
              "the jar is on the driver and executor classpath and that spark.sql.extensions "
              f"includes {EXTENSIONS_CLASS} (and {ENABLED_KEY} is not false).", file=sys.stderr)
        status = status or 3

    spark.stop()
    return status


if __name__ == "__main__":
    sys.exit(main())
