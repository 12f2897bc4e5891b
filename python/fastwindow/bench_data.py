"""The generated input of a data shape, written once as Parquet and reused by later runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .bench_workloads import Shape


def _generate_parquet(spark: Any, shape: Shape, rows: int, path: Path) -> None:
    if shape.scattered and shape.rows_per_partition == 1:
        part = "xxhash64(id, 4)"
    elif shape.scattered:
        keys = shape.keys or rows // shape.rows_per_partition
        part = f"pmod(xxhash64(id, 4), {max(keys, 1)})"
    elif shape.cycling:
        part = f"pmod(id, {max(rows // shape.rows_per_partition, 1)})"
    else:
        part = f"id div {shape.rows_per_partition}" if shape.rows_per_partition else "0"
    if shape.hot_share:
        # Key 0 for the hot share, the others moved up by one so that none of them is key 0.
        part = (f"CASE WHEN pmod(xxhash64(id, 5), 1000) < {round(shape.hot_share * 1000)} "
                f"THEN 0 ELSE 1 + {part} END")
    spark.range(0, rows, 1, 4).selectExpr(
        f"{part} AS p",
        "id AS o",
        "timestamp_seconds(1704067200 + id * 7) AS ts",                  # 7 s apart: ~514 per hour
        "CAST(pmod(xxhash64(id, 1), 100000) AS DOUBLE) / 7 AS x",
        "CASE WHEN pmod(id, 13) = 0 THEN NULL ELSE pmod(xxhash64(id, 2), 1000000) - 500000 END AS v",
        "CAST(pmod(xxhash64(id, 3), 1000000) AS DECIMAL(12, 0)) / 100 AS d",
        "concat('customer-', pmod(xxhash64(id, 6), 1000000), '@example.org') AS s",
    ).write.mode("overwrite").parquet(str(path))
