"""One jar's times (medians of 3 after a warm-up) for first/last over an ORDER BY whose ranges need a sort:
    python benchmarks/results/ties_sort_cost_4M/run.py JAR [true|false: fastwindow on or off]"""
import statistics, sys, time
from pyspark.sql import SparkSession
jar = sys.argv[1]
spark = (SparkSession.builder.master("local[2]").config("spark.driver.memory", "6g")
         .config("spark.jars", jar).config("spark.sql.extensions", "fastwindow.FastWindowExtensions")
         .config("spark.sql.shuffle.partitions", "8").config("spark.fastwindow.enabled", sys.argv[2] if len(sys.argv) > 2 else "true").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
path = "benchmarks/results/ties_sort_cost_4M/data"
import os
if not os.path.exists(path):
    spark.range(0, 4_000_000, 1, 4).selectExpr("id", "CAST(pmod(xxhash64(id, 1), 100000) AS DOUBLE) / 7 AS x",
        "CASE WHEN pmod(id, 13) = 0 THEN NULL ELSE pmod(xxhash64(id, 2), 1000000) END AS v",
        "concat('customer-', pmod(xxhash64(id, 6), 1000000)) AS s").write.parquet(path)
spark.read.parquet(path).createOrReplaceTempView("t")
queries = {
  "forward_fill_x": "select id, last(v, true) over (order by x) from t",
  "first_values_x": "select id, first(v) over (order by x), nth_value(v, 3) over (order by x) from t",
  "running_sum_x": "select id, sum(v) over (order by x) from t",
}
for name, q in queries.items():
    ts = []
    for r in range(4):
        t = time.time(); spark.sql(q).write.format("noop").mode("overwrite").save(); d = time.time() - t
        if r: ts.append(d)
    print(name, f"{statistics.median(ts):.3f}", flush=True)
