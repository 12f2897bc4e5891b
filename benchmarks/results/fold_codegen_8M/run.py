"""Wall and per-stage executor times of one global window over the bench's 8M-row `none` data:

    python run.py JAR on|off QUERY DATA

QUERY is running_sum, row_number or shuffle (the columns range-shuffled alone, fastwindow off);
DATA the Parquet directory written by `python -m fastwindow bench --rows 8000000 --shapes none
--out OUT` (OUT/data/none_8000000_v2.parquet). One fresh session, 7 runs into the no-op
sink; prints the stages of runs 5 and 6 (stage id, tasks, summed executor run time in ms, name)
from Spark's REST API, and the median wall time of runs 3 to 7."""
import json
import statistics
import sys
import time
import urllib.request

from pyspark.sql import SparkSession

jar, mode, name = sys.argv[1], sys.argv[2], sys.argv[3]
data = sys.argv[4]
spark = (SparkSession.builder.master("local[2]").config("spark.driver.memory", "6g")
         .config("spark.jars", jar).config("spark.sql.extensions", "fastwindow.FastWindowExtensions")
         .config("spark.sql.shuffle.partitions", "8")
         .config("spark.fastwindow.enabled", str(mode == "on").lower())
         .config("spark.ui.showConsoleProgress", "false").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
spark.read.parquet(data).createOrReplaceTempView("t")
query = {
    "row_number": "SELECT p, o, row_number() OVER (ORDER BY o) AS r FROM t",
    "running_sum": "SELECT p, o, v, sum(v) OVER (ORDER BY o ROWS BETWEEN UNBOUNDED PRECEDING "
                   "AND CURRENT ROW) AS r FROM t",
    "shuffle": "SELECT /*+ REPARTITION_BY_RANGE(o) */ p, o, v FROM t",
}[name]
ui, app = spark.sparkContext.uiWebUrl, spark.sparkContext.applicationId


def get(path):
    return json.load(urllib.request.urlopen(f"{ui}/api/v1/applications/{app}/{path}"))


walls = []
for r in range(7):
    spark.sparkContext.setJobGroup(f"run{r}", name)
    start = time.time()
    spark.sql(query).write.format("noop").mode("overwrite").save()
    walls.append(time.time() - start)
time.sleep(1)
stages = {}
for job in get("jobs"):
    for sid in job["stageIds"]:
        for s in get(f"stages/{sid}"):
            if s["status"] == "COMPLETE":
                stages.setdefault(str(job.get("jobGroup")), []).append(
                    (sid, s["numTasks"], s["executorRunTime"], s["name"][:40]))
for run in ("run5", "run6"):
    print(run, sorted(stages.get(run, [])))
print("RESULT", name, mode, "wall median", f"{statistics.median(walls[2:]):.3f}",
      [f"{w:.2f}" for w in walls])
