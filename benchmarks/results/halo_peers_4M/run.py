"""One system's times (medians of 3 after a warm-up, one fresh session) for halo windows without
PARTITION BY over 4M rows from Parquet, `local[2]`, 8 shuffle partitions:
    python benchmarks/results/halo_peers_4M/run.py JAR|spark [query,query...]"""
import os, statistics, sys, time
from pyspark.sql import SparkSession
system = sys.argv[1]
builder = (SparkSession.builder.master("local[2]").config("spark.driver.memory", "6g")
           .config("spark.sql.shuffle.partitions", "8"))
if system != "spark":
    builder = builder.config("spark.jars", system) \
        .config("spark.sql.extensions", "fastwindow.FastWindowExtensions")
spark = builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
path = "benchmarks/results/ties_sort_cost_4M/data"
if not os.path.exists(path):
    sys.exit(f"{path} is missing: benchmarks/results/ties_sort_cost_4M/run.py writes it")
spark.read.parquet(path).createOrReplaceTempView("t")
queries = {
  "lag_ties": "select id, lag(v) over (order by x), lead(v, 2) over (order by x) from t",
  "moving_ties": "select id, avg(v) over (order by x rows between 2 preceding and 2 following) from t",
  "lag_unique": "select id, lag(v) over (order by h) from (select *, xxhash64(id) h from t)",
  "lag_in_order": "select id, lag(v) over (order by id) from t",
  "lag_string": "select id, lag(v) over (order by s) from t",
}
chosen = sys.argv[2].split(",") if len(sys.argv) > 2 else list(queries)
for name in chosen:
    ts = []
    for r in range(4):
        t = time.time(); spark.sql(queries[name]).write.format("noop").mode("overwrite").save()
        if r: ts.append(time.time() - t)
    print("RESULT", os.path.basename(system), name, f"{statistics.median(ts):.3f}", flush=True)
