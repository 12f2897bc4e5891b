"""The systems a query runs on: Spark sessions configured as fastwindow (and its variants) or
plain Spark, with DataFusion Comet and without, plus the names of the references reported beside
them (DuckDB, shuffle only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Sequence

from ._session import ENABLED_KEY

SEGMENT_TREE_KEY = "spark.sql.window.segmentTree.enabled"
SPLIT_MIXED_KEY = "spark.fastwindow.streaming.splitMixed"
EXACT_FLOATS_KEY = "spark.fastwindow.exactFloats"
GROUP_SORT_KEY = "spark.fastwindow.groupSort.enabled"
ACROSS_TASKS_KEY = "spark.fastwindow.acrossTasks.enabled"
SKEWED_KEYS_KEY = "spark.fastwindow.acrossTasks.skewedKeys"
RANGES_IN_ORDER_KEY = "spark.fastwindow.acrossTasks.rangesInOrder"
KEY_AGGREGATES_KEY = "spark.fastwindow.keyAggregates.enabled"
COMET_KEY = "spark.comet.enabled"
BESIDE_COMET_KEY = "spark.fastwindow.besideComet"


@dataclass(frozen=True)
class System:
    name: str
    confs: Dict[str, str]


#: fastwindow's defaults, as a user gets them (the systems below differ from them by name).
_DEFAULTS = {KEY_AGGREGATES_KEY: "true", SEGMENT_TREE_KEY: "false", SPLIT_MIXED_KEY: "false",
             EXACT_FLOATS_KEY: "false", GROUP_SORT_KEY: "true", ACROSS_TASKS_KEY: "true"}


def _fastwindow(name: str, **changed: str) -> System:
    """fastwindow with its defaults but for the `changed` keys (named as below)."""
    keys = {"key_aggregates": KEY_AGGREGATES_KEY, "split_mixed": SPLIT_MIXED_KEY,
            "exact_floats": EXACT_FLOATS_KEY, "group_sort": GROUP_SORT_KEY,
            "across_tasks": ACROSS_TASKS_KEY, "skewed_keys": SKEWED_KEYS_KEY,
            "ranges_in_order": RANGES_IN_ORDER_KEY}
    return System(name, {ENABLED_KEY: "true", **_DEFAULTS,
                         **{keys[k]: v for k, v in changed.items()}})


_SYSTEMS = [
    # What a user gets: every default (windows without PARTITION BY spread over ranges too).
    _fastwindow("fastwindow"),
    # Windows without PARTITION BY in one task, as Spark runs them
    # (spark.fastwindow.acrossTasks.enabled off).
    _fastwindow("fastwindow_one_task", across_tasks="false"),
    # The defaults, under the name earlier runs gave the ranges (the docs quote their commands).
    _fastwindow("fastwindow_spread"),
    # The ranges each sorted by Spark even where their rows reach the map tasks in order
    # (spark.fastwindow.acrossTasks.rangesInOrder off).
    _fastwindow("fastwindow_spread_sorted", ranges_in_order="false"),
    # Also PARTITION BY windows whose skewed keys are split over tasks
    # (spark.fastwindow.acrossTasks.skewedKeys, off by default).
    _fastwindow("fastwindow_skewed", skewed_keys="true"),
    # Spark's sort of the whole task below FastWindow, instead of each task's rows grouped by key
    # by hash and each window partition sorted alone (spark.fastwindow.groupSort.enabled off).
    _fastwindow("fastwindow_sorted", group_sort="false"),
    # Mixed streamed/buffering windows as two operators (see spark.fastwindow.streaming.splitMixed).
    _fastwindow("fastwindow_split", split_mixed="true"),
    # Floating-point aggregates over sliding frames in Spark's order (spark.fastwindow.exactFloats).
    _fastwindow("fastwindow_exact", exact_floats="true"),
    # Whole-partition windows over rows shuffled by key (the hash window), as before they could
    # stay where they are (spark.fastwindow.keyAggregates.enabled).
    _fastwindow("fastwindow_shuffled", key_aggregates="false"),
    System("spark", {ENABLED_KEY: "false", SEGMENT_TREE_KEY: "false"}),
    System("spark_segtree", {ENABLED_KEY: "false", SEGMENT_TREE_KEY: "true"}),
]

#: Systems of a session started with DataFusion Comet (its plugin and shuffle manager are static:
#: any of these makes the bench start its session with Comet, on Spark 4.1). The others then run
#: in that session with Comet switched off (spark.comet.enabled=false).
COMET_SYSTEMS = [
    System("comet", {COMET_KEY: "true", ENABLED_KEY: "false", SEGMENT_TREE_KEY: "false"}),
    # Each window where it was measured faster (spark.fastwindow.besideComet=AUTO).
    System("comet_fastwindow",
           {COMET_KEY: "true", ENABLED_KEY: "true", BESIDE_COMET_KEY: "AUTO", **_DEFAULTS}),
    # Every window fastwindow supports on fastwindow, Comet around it (besideComet=TAKE_ALL).
    System("comet_fastwindow_all",
           {COMET_KEY: "true", ENABLED_KEY: "true", BESIDE_COMET_KEY: "TAKE_ALL", **_DEFAULTS}),
]
SPARK_SYSTEMS = [System(s.name, {COMET_KEY: "false", **s.confs}) for s in _SYSTEMS] + COMET_SYSTEMS


#: Systems compared with the reference in reports (ratio = theirs / the reference's), in order.
OTHER_SYSTEMS = ("fastwindow", "fastwindow_one_task", "fastwindow_spread", "fastwindow_spread_sorted", "fastwindow_skewed",
                 "fastwindow_split", "fastwindow_exact", "fastwindow_sorted", "fastwindow_shuffled", "spark",
                 "spark_segtree", "duckdb", "comet", "comet_fastwindow", "comet_fastwindow_all")


def uses_comet(names: Sequence[str]) -> bool:
    """Whether the bench's session must start with DataFusion Comet."""
    return any(s.name in names for s in COMET_SYSTEMS)


def reference_system(names: Sequence[str]) -> str:
    """The system ratios are taken against: Comet with fastwindow in a run with Comet, else
    fastwindow."""
    return "comet_fastwindow" if "comet_fastwindow" in names else "fastwindow"
#: The reference without a window (see fastwindow.bench): reported as Spark's ceiling, no ratio.
SHUFFLE_ONLY = "shuffle_only"


def _segment_tree_available(spark: Any) -> bool:
    """Whether this Spark defines spark.sql.window.segmentTree.enabled (SET -v lists defined keys)."""
    return spark.sql("SET -v").filter(f"key = '{SEGMENT_TREE_KEY}'").count() > 0


#: Every key some system sets: a system that does not name one runs with its default.
_SYSTEM_KEYS = sorted({k for s in SPARK_SYSTEMS for k in s.confs})


def _set(spark: Any, confs: Dict[str, str]) -> None:
    """Switches the session to a system's settings; the keys other systems set and this one does
    not go back to their defaults (a setting must not leak from the system run before)."""
    for k in _SYSTEM_KEYS:
        if k not in confs:
            spark.conf.unset(k)
    for k, v in confs.items():
        spark.conf.set(k, v)
