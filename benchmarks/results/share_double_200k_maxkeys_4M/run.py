"""Share of the total over doubles at 200k keys: default maxKeys vs raised vs Spark, interleaved."""
import statistics, sys, time, os
sys.path.insert(0, "python")  # run from the checkout
import fastwindow
from pyspark.sql import SparkSession
b = SparkSession.builder.master("local[2]").config("spark.driver.memory", "8g") \
    .config("spark.sql.shuffle.partitions", sys.argv[1] if len(sys.argv) > 1 else "8")
spark = fastwindow.configure(b).getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
rows = 4_000_000
for name, part in [("hash200k", "pmod(xxhash64(id, 4), 200000)"), ("cycle200k", "pmod(id, 200000)")]:
    path = f"benchmarks/results/share_double_200k_maxkeys_4M/data/{name}"
    if not os.path.exists(path):
        spark.range(0, rows, 1, 4).selectExpr(f"{part} AS p", "id AS o",
            "CAST(pmod(xxhash64(id, 1), 100000) AS DOUBLE) / 7 AS x",
            "concat('customer-', pmod(xxhash64(id, 6), 1000000), '@example.org') AS s"
        ).write.mode("overwrite").parquet(path)
    spark.read.parquet(path).createOrReplaceTempView(name)
systems = {
    "spark": {"spark.fastwindow.enabled": "false"},
    "fw": {"spark.fastwindow.enabled": "true", "spark.fastwindow.keyAggregates.maxKeys": "32768"},
    "fw_262k": {"spark.fastwindow.enabled": "true", "spark.fastwindow.keyAggregates.maxKeys": "262144"},
}
for view in ["hash200k", "cycle200k"]:
    q = f"SELECT p, o, s, x / sum(x) OVER (PARTITION BY p) AS share, count(*) OVER (PARTITION BY p) AS n FROM {view}"
    times = {k: [] for k in systems}
    for r in range(6):
        for k, confs in systems.items():
            for ck, cv in confs.items():
                spark.conf.set(ck, cv)
            t = time.time()
            spark.sql(q).write.format("noop").mode("overwrite").save()
            if r > 0:
                times[k].append(time.time() - t)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(view, " ".join(f"{k} {v:.3f}s" for k, v in med.items()),
          " ".join(f"spark/{k} {med['spark']/v:.2f}x" for k, v in med.items() if k != "spark"), flush=True)
