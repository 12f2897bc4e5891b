"""The SQL of a workload over a shape (Spark's and DuckDB's spelling), the shuffle-only reference
without the window, and the checksums that compare the systems' results before any timing."""

from __future__ import annotations

import math
import re
from typing import Any, Optional, Sequence

from .bench_workloads import Shape, Workload

FLOAT_TOLERANCE = 1e-9


def query_sql(workload: Workload, shape: Shape, table: str, duckdb: bool = False) -> str:
    part = "PARTITION BY p " if shape.rows_per_partition or shape.scattered else ""
    specs = {"w": f"{part}ORDER BY {workload.order_key}", "p": part.strip()}
    expressions = (workload.duckdb_expressions or workload.expressions) if duckdb \
        else workload.expressions
    cols = ", ".join(f"{e.format(**specs)} AS r{k}" for k, e in enumerate(expressions))
    source = workload.source.format(table=table) if workload.source else table
    query = f"SELECT {'*' if workload.select_all else 'p, o'}, {cols} FROM {source}"
    return f"SELECT * FROM ({query}) WHERE {workload.where}" if workload.where else query


#: The generated table's columns a query may read besides p and o.
_VALUE_COLUMNS = ("ts", "x", "v", "d", "s")


def _partition_by(sql: str) -> Optional[str]:
    """The first PARTITION BY expression list in `sql` (up to ORDER BY or its window's ')')."""
    start = sql.find("PARTITION BY ")
    if start < 0:
        return None
    depth, i = 0, start + len("PARTITION BY ")
    while i < len(sql) and not (depth == 0 and (sql[i] == ")" or sql.startswith(" ORDER BY", i))):
        depth += {"(": 1, ")": -1}.get(sql[i], 0)
        i += 1
    return sql[start + len("PARTITION BY "):i].strip()


def shuffle_only_sql(workload: Workload, shape: Shape, table: str) -> Optional[str]:
    """The end-to-end query without its window: the columns it reads, shuffled by its PARTITION BY
    key (as Spark's plan shuffles them) into the same sink. Without PARTITION BY, those columns
    shuffled into ranges of the window's ORDER BY key and not sorted (what a window spread over
    tasks does at least: sorting each range is the window operator's part). A top-k, whose
    partial limit runs before the shuffle (no plan of it moves every row): the columns read
    alone, with no shuffle (what any plan of it pays). None for a window without ORDER BY
    (``OVER ()``) or over another source than the table."""
    sql = query_sql(workload, shape, table)
    key = _partition_by(sql)
    ordered = all("{w}" in e for e in workload.expressions)
    if (key is None and not ordered) or workload.source:
        return None
    read = " ".join(workload.expressions) + " " + workload.order_key
    columns = ["p", "o"] + [c for c in _VALUE_COLUMNS if re.search(rf"\b{c}\b", read)]
    if workload.where:
        return f"SELECT {'*' if workload.select_all else ', '.join(columns)} FROM {table}"
    if key is None:
        return (f"SELECT /*+ REPARTITION_BY_RANGE({workload.order_key}) */ {', '.join(columns)} "
                f"FROM {table}")
    return f"SELECT {', '.join(columns)} FROM {table} DISTRIBUTE BY {key}"



def _checksum_sql(query: str, columns: Sequence[str], float_columns: Sequence[str]) -> str:
    parts = ["count(*)"]
    for c in columns:
        parts.append(f"count({c})")
        parts.append(f"sum(CAST({c} AS DOUBLE))" if c in float_columns
                     else f"sum(CAST(xxhash64({c}) AS DECIMAL(38, 0)))")
    return f"SELECT {', '.join(parts)} FROM ({query})"


def _compare_checksums(a: Sequence[Any], b: Sequence[Any]) -> Optional[str]:
    for k, (x, y) in enumerate(zip(a, b)):
        if isinstance(x, float) or isinstance(y, float):
            if x is None or y is None or math.isnan(x) or math.isnan(y):
                same = (x is None and y is None) or (x is not None and y is not None
                                                     and math.isnan(x) and math.isnan(y))
            else:
                same = math.isclose(x, y, rel_tol=FLOAT_TOLERANCE, abs_tol=1e-6)
        else:
            same = x == y
        if not same:
            return f"checksum field {k}: {x!r} vs {y!r}"
    return None
