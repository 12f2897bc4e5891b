"""How much of a varied mix of window queries runs on FastWindow, and why the rest does not.

    python benchmarks/coverage.py [--queries 400] [--seed 7] 2>/dev/null

Draws seeded random window queries from the whole range of Spark's window functions — ranking,
offsets, every common aggregate including those fastwindow does not run (yet) — over random
frames (whole, running, moving, shrinking, ROWS and RANGE) and value types, plans each with
fastwindow on (planning only: who runs a window is decided when the plan is built) and prints the
share of queries whose every window runs on FastWindow, and the fallback reasons of the rest,
most frequent first. Queries Spark itself rejects (e.g. median over an ordered frame) are drawn
again.
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import sys
from typing import Tuple

from pyspark.sql import SparkSession

import fastwindow

TABLE = """(SELECT id, id % 7 AS p, id % 3 AS q, CAST(id * 37 % 101 AS INT) AS i,
    id * 7919 % 100003 AS l, CAST(id % 17 AS DOUBLE) / 4 AS d,
    CAST(id % 1000 AS DECIMAL(10, 2)) AS dec, CAST(id % 11 AS STRING) AS s,
    DATE'2024-01-01' + CAST(id % 40 AS INT) AS dt,
    TIMESTAMP'2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, CAST(id % 500 AS INT)) AS ts,
    id % 2 = 0 AS b, array(CAST(id % 3 AS INT)) AS arr FROM range(0, 100)) t"""

NUMERIC = ["i", "l", "d", "dec"]
ANY = NUMERIC + ["s", "dt", "ts", "b"]

#: Every function of the mix, as a template over {x} (any value), {n} (numeric), {y} (numeric).
FUNCTIONS = [
    "row_number()", "rank()", "dense_rank()", "percent_rank()", "cume_dist()", "ntile(4)",
    "lag({x})", "lead({x}, 2)", "lag({x}) ignore nulls", "nth_value({x}, 2)",
    "first({x})", "last({x}, true)", "any_value({x})",
    "count({x})", "count(*)", "count_if({n} > 0)", "sum({n})", "avg({n})", "min({x})", "max({x})",
    "min_by({x}, {n})", "max_by({x}, {n})", "stddev({n})", "variance({n})", "skewness({n})",
    "kurtosis({n})", "corr({n}, {y})", "covar_pop({n}, {y})", "regr_slope({n}, {y})",
    "bit_and(i)", "bit_or(l)", "bool_and(b)", "percentile({n}, 0.5)", "median({n})",
    "count(DISTINCT {x})", "sum(DISTINCT {n})", "avg(DISTINCT {n})",
    "size(collect_set({x}) OVER)", "collect_list({x})", "collect_set({x})", "array_agg({x})",
    "approx_count_distinct({x})",
    "mode({x})", "percentile_approx({n}, 0.5)", "histogram_numeric({n}, 3)",
]

FRAMES = [
    "", "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
    "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
    "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
    "ROWS BETWEEN 3 PRECEDING AND CURRENT ROW", "ROWS BETWEEN 10 PRECEDING AND 2 FOLLOWING",
    "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING", "RANGE BETWEEN 5 PRECEDING AND CURRENT ROW",
]


def window(rng: random.Random, function: str) -> str:
    partition = rng.choice(["", "PARTITION BY p", "PARTITION BY p, q"])
    if function.startswith("median"):  # Spark takes no ORDER BY or frame for it
        return partition
    if re.match(r"(row_number|rank|dense_rank|percent_rank|cume_dist|ntile|lag|lead)\(", function):
        return f"{partition} ORDER BY {rng.choice(ANY)}, id"
    frame = rng.choice(FRAMES)
    if not frame:
        return f"{partition} ORDER BY id" if rng.random() < 0.5 else partition
    order = "i" if frame.startswith("RANGE") else rng.choice(ANY) + ", id"
    return f"{partition} ORDER BY {order} {frame}"


#: What FastWindow runs with Spark's own aggregate over each frame, at Spark's cost.
REPLAYED = {"collect_set({x})", "histogram_numeric({n}, 3)"}


def expression(rng: random.Random) -> Tuple[str, str]:
    """A window expression, and the template it was drawn from."""
    template = rng.choice(FUNCTIONS)
    call = template.format(x=rng.choice(ANY), n=rng.choice(NUMERIC), y=rng.choice(NUMERIC))
    over = f"OVER ({window(rng, call)})"
    return (call.replace("OVER", over) if "OVER" in call else f"{call} {over}"), template


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    spark = fastwindow.configure(SparkSession.builder.master("local[1]")).getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    rng = random.Random(args.seed)
    on_fastwindow, rejected, reasons = 0, 0, collections.Counter()
    replayed, handed_over = 0, 0
    done = 0
    while done < args.queries:
        drawn = [expression(rng) for _ in range(rng.randint(1, 4))]
        cols = ", ".join(f"{e} AS c{k}" for k, (e, _) in enumerate(drawn))
        try:
            df = spark.sql(f"SELECT id, {cols} FROM {TABLE}")
            df.collect()
            reports = fastwindow.explain(df)
        except Exception:  # noqa: BLE001 - a query Spark itself rejects: draw another
            rejected += 1
            continue
        done += 1
        fallbacks = [r for r in reports if not r.fastwindow]
        if not fallbacks:
            on_fastwindow += 1
            replayed += any(template in REPLAYED for _, template in drawn)
            handed_over += any(r.metrics.get("numHandedOverPartitions", 0) for r in reports)
        for r in fallbacks:
            reasons[re.sub(r" \(supported.*", "", r.reason or "?")] += 1
    print(f"{on_fastwindow} of {done} queries ({100.0 * on_fastwindow / done:.1f}%) run every "
          f"window on FastWindow ({rejected} drawn queries Spark rejects were drawn again)")
    print(f"  of which {replayed} use collect_set's array or histogram_numeric (Spark's own "
          f"aggregate over each frame, at Spark's cost) and {handed_over} handed a partition to "
          "Spark at run time (mode ties, percentile_approx beyond its exact range)")
    print("fallback reasons (windows left to Spark), most frequent first:")
    for reason, count in reasons.most_common():
        print(f"  {count:4d}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
