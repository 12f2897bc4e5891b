"""fastwindow beside DataFusion Comet: each window where it runs fastest, with Spark's answers.

Runs in a session with Comet (``FASTWINDOW_TEST_COMET=1``: CI's ``line-4.1_comet`` part, the one
Spark line Comet is served for); without Comet every test here is skipped. Each query runs with
Comet and fastwindow (``spark.fastwindow.besideComet`` at its default, AUTO) and its rows must be
vanilla Spark's: the same session with Comet and fastwindow switched off. The plan must show who
ran each window: Comet's native operator, left to it with the reason, or fastwindow, with why it
took the window from Comet.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import fastwindow
import pytest

from helpers import assert_rows_equal, run, session_confs

pytestmark = pytest.mark.skipif(
    not os.environ.get("FASTWINDOW_TEST_COMET"),
    reason="needs a session with DataFusion Comet (FASTWINDOW_TEST_COMET=1); CI runs this file "
           "in the 4.1 line's Comet part (tests/line_suite.py)")

BESIDE = "spark.fastwindow.besideComet"
COMET_WINDOW, COMET_LIMIT, FAST = "CometWindowExec", "CometWindowGroupLimitExec", "FastWindow"
W = "partition by k order by id"
#: Four ranges for a window across tasks (not coalesced into one by adaptive execution).
RANGED = {"spark.sql.shuffle.partitions": "4", "spark.sql.adaptive.coalescePartitions.enabled": "false"}


@pytest.fixture(scope="module")
def events(spark_session, tmp_path_factory):
    """20,000 rows from Parquet (Comet's native scan): 200 keys, doubles with nulls, ints with
    ties, strings, decimals, dates."""
    path = str(tmp_path_factory.mktemp("comet") / "events")
    spark_session.range(0, 20000, 1, 2).selectExpr(
        "id", "id % 200 as k",
        "case when id % 17 = 0 then null else cast((id * 7919) % 1000 as double) / 8 end as v",
        "cast(id % 23 as int) as i", "cast(id % 13 as string) as s",
        "cast((id * 31) % 10000 as decimal(12, 2)) as dec",
        "date_add(date'2024-01-01', cast(id % 90 as int)) as dt").write.parquet(path)
    spark_session.read.parquet(path).createOrReplaceTempView("events")
    return spark_session


def vanilla_rows(spark, query: str):
    """Spark's rows: Comet and fastwindow off, and the plan shows neither ran a window."""
    with session_confs(spark, {"spark.comet.enabled": "false"}):
        spark_run = run(spark, query, fastwindow_on=False)
    assert all(not r.fastwindow and not r.operator.startswith("Comet")
               for r in spark_run.reports), spark_run.reports
    return spark_run.rows


def assert_spark_rows(actual, expected):
    """Spark's rows: exact, but floating values within 1e-12 of their magnitude where they differ
    (fastwindow's documented tolerance for floating moments over sliding frames)."""
    try:
        assert_rows_equal(actual, expected)
    except Exception:  # noqa: BLE001 - chispa's error or an AssertionError: compare again below
        a, e = sorted(actual, key=lambda r: r.id), sorted(expected, key=lambda r: r.id)
        assert len(a) == len(e)
        for x, y in zip(a, e):
            for u, v in zip(x, y):
                if isinstance(u, float) and isinstance(v, float):
                    assert math.isclose(u, v, rel_tol=1e-12, abs_tol=1e-12), (x, y)
                else:
                    assert u == v, (x, y)


def assert_placed(spark, query: str, expected: dict, confs: dict = None):
    """Runs ``query`` beside Comet; asserts Spark's rows and each window operator of the plan
    (``expected`` maps an operator to a text of its reason or note), and returns the reports."""
    with session_confs(spark, confs or {}):
        fast = run(spark, query, fastwindow_on=True)
    assert_spark_rows(fast.rows, vanilla_rows(spark, query))
    assert {r.operator for r in fast.reports} == set(expected), fast.reports
    for r in fast.reports:
        text = (r.reason or "") + (r.note or "")
        assert expected[r.operator] in text, r
    return fast.reports


PLACEMENTS = {
    # Comet runs these natively, measured faster: left to it.
    "row_number": (f"row_number() over ({W})", COMET_WINDOW, "left to Comet"),
    "rank_ntile": (f"rank() over (partition by k order by i), ntile(4) over ({W})", COMET_WINDOW,
                   "left to Comet"),
    "running_sum": (f"sum(i) over ({W})", COMET_WINDOW, "left to Comet"),
    "share_of_total": ("v / sum(v) over (partition by k)", COMET_WINDOW, "left to Comet"),
    "first_last_moving": (f"first(s) over ({W} rows between 3 preceding and current row), "
                          f"last(v, true) over ({W} rows between 3 preceding and current row)",
                          COMET_WINDOW, "left to Comet"),
    "running_max": (f"max(v) over ({W})", COMET_WINDOW, "left to Comet"),
    # lag alone is taken (below), but beside percent_rank, which makes fastwindow hold every
    # partition whole as Comet does (slower over large ones), the window is left.
    "lag_percent_rank": (f"lag(v) over ({W}), percent_rank() over ({W})", COMET_WINDOW,
                         "holds each window partition whole"),
    "global_row_number": ("row_number() over (order by id)", COMET_WINDOW, "one native task"),
    "global_lag": ("lag(v) over (order by id)", COMET_WINDOW, "one native task"),
    "global_forward_fill": ("last(v, true) over (order by id)", FAST,
                            "than Comet's one native task too"),
    "global_lag_ignore_nulls": ("lag(v) ignore nulls over (order by id)", FAST,
                                "than Comet's one native task too"),
    # Comet runs these natively; fastwindow measured faster.
    "lag_lead": (f"lag(v) over ({W}), lead(v, 2, 0.0) over ({W})", FAST, "taken from Comet"),
    "moving_avg": (f"avg(v) over ({W} rows between 9 preceding and current row)", FAST,
                   "taken from Comet: moving avg"),
    "range_sum": ("sum(i) over (partition by k order by i range between 2 preceding and current "
                  "row)", FAST, "taken from Comet: moving sum"),
    "moving_max": (f"max(v) over ({W} rows between 10 preceding and current row)", FAST,
                   "taken from Comet: moving max"),
    "forward_fill": (f"first(s) over ({W}), last(v, true) over ({W})", FAST,
                     "taken from Comet: first over a frame from the partition's start"),
    # Comet hands these to Spark's WindowExec: fastwindow takes them.
    "stddev": (f"stddev(v) over ({W} rows between 20 preceding and current row)", FAST,
               "Spark's WindowExec"),
    "decimal_moving_sum": (f"sum(dec) over ({W} rows between 5 preceding and current row)", FAST,
                           "decimals over sliding frames"),
    "min_string": (f"min(s) over ({W})", FAST, "compares numbers"),
    "rolling_median": (f"percentile(v, 0.5) over ({W} rows between 20 preceding and current row)",
                       FAST, "Spark's WindowExec"),
    "date_range": ("count(*) over (partition by k order by dt range between interval 3 days "
                   "preceding and current row)", FAST, "numeric"),
    "lag_column_default": (f"lag(v, 1, i) over ({W})", FAST, "constant default"),
    "mixed": (f"row_number() over ({W}), stddev(v) over ({W})", FAST, "Spark's WindowExec"),
}


@pytest.mark.parametrize("name", sorted(PLACEMENTS))
def test_each_window_where_it_runs_fastest(events, spark, name):
    functions, operator, why = PLACEMENTS[name]
    assert_placed(spark, f"select id, {functions} from events", {operator: why})


def test_rank_filter_left_to_comets_window_and_group_limit(events, spark):
    reports = assert_placed(
        spark, f"select * from (select *, rank() over (partition by k order by v desc) r "
               f"from events) where r <= 3", {COMET_WINDOW: "left to Comet",
                                               COMET_LIMIT: "top-k per group"})
    assert [r.operator for r in reports].count(COMET_LIMIT) == 2, reports


def test_windows_comet_hands_back_are_taken_after_its_rules(events, spark):
    """A window fastwindow left to Comet that Comet gives to Spark after all (here: Comet's sum
    switched off) runs on FastWindow, planned after Comet's rules."""
    assert_placed(spark, f"select id, sum(i) over ({W}) from events", {FAST: "handed it to Spark"},
                  {"spark.comet.expression.Sum.enabled": "false"})


def test_leave_all_leaves_what_comet_runs_natively(events, spark):
    confs = {BESIDE: "LEAVE_ALL"}
    assert_placed(spark, f"select id, lag(v) over ({W}) from events",
                  {COMET_WINDOW: "LEAVE_ALL"}, confs)
    assert_placed(spark, f"select id, stddev(v) over ({W}) from events",
                  {FAST: "Spark's WindowExec"}, confs)


def test_enough_slots_take_windows_without_partition_by_across_tasks(events, spark):
    reports = assert_placed(spark, "select id, row_number() over (order by id) r from events",
                            {FAST: "across tasks"},
                            {"spark.fastwindow.besideComet.minSlotsAcrossTasks": "2", **RANGED})
    assert dict(reports[0].metrics).get("numRanges", 0) > 1, reports


TAKE_ALL = {
    # Ranges across tasks through Comet's shuffle manager: a Spark row shuffle of its own.
    "across_tasks": ("select id, row_number() over (order by id) r, sum(i) over (order by id) s "
                     "from events", {FAST: "across tasks"}),
    # The partial top-k before Comet's shuffle, the final one after it.
    "top_k": ("select * from (select *, row_number() over (partition by k order by v desc, id) r "
              "from events) where r <= 2", {FAST: "", "FastGroupLimit": "no sort"}),
    # Whole-partition aggregates: where the rows are needs a scan fastwindow reads twice (Spark's
    # own); Comet's native scan is not one, so the rows are shuffled (per key by hash).
    "key_aggregates": ("select id, sum(i) over (partition by k) s, count(*) over () c from events",
                       {FAST: "taken from Comet"}),
    "group_sort": (f"select id, row_number() over ({W}) r from events", {FAST: "no sort below"}),
}


@pytest.mark.parametrize("name", sorted(TAKE_ALL))
def test_take_all_keeps_every_feature_beside_comets_shuffle(events, spark, name):
    query, expected = TAKE_ALL[name]
    reports = assert_placed(spark, query, expected, {BESIDE: "TAKE_ALL", **RANGED})
    if name == "across_tasks":
        assert all(dict(r.metrics).get("numRanges", 0) > 1 for r in reports), reports


def test_explain_says_who_runs_each_window(events, spark):
    df = spark.sql(f"select id, row_number() over ({W}) r, lag(v) over (partition by i order "
                   f"by id) l from events")
    text = fastwindow.explain_string(df)
    assert "CometWindowExec" in text and "left to Comet" in text, text
    assert "runs on fastwindow" in text and "taken from Comet" in text, text


def test_bench_runs_the_comet_systems(tmp_path):
    """The bench's Comet systems in a session it starts with Comet: Spark's answers, each
    workload's operator, and ratios against Comet with fastwindow."""
    out = tmp_path / "bench"
    workloads = ["row_number", "lag_lead", "moving_stddev_w100"]
    cmd = [sys.executable, "-m", "fastwindow", "bench", "--rows", "3000", "--repeat", "1",
           "--driver-memory", "1g", "--out", str(out), "--shapes", "keys20", "--modes",
           "end-to-end", "--workloads", ",".join(workloads),
           "--systems", "spark,comet,comet_fastwindow,comet_fastwindow_all"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    cases = {c["workload"]: c for c in json.loads((out / "results.json").read_text())["cases"]}
    assert all(c["results_agree"] for c in cases.values()), cases
    assert {w: cases[w]["operator"] for w in workloads} == {
        "row_number": COMET_WINDOW, "lag_lead": FAST, "moving_stddev_w100": FAST}
    assert "comet / comet_fastwindow" in (out / "results.md").read_text()


def test_local_cluster_with_comets_shuffle_and_executors(tmp_path):
    """The deployment workload (tests/apps/deployment_app.py: every family, frames, across-tasks
    ranges, skewed keys, an ANSI overflow) on a two-executor local-cluster started with Comet's
    plugin, shuffle manager and jar: fastwindow plans every window (Comet's window off, so the
    other side is Spark's WindowExec over Comet's scan and shuffle) and answers as Spark does."""
    from fastwindow._comet import comet_jar, comet_confs
    from test_deployments import APP, FIRST_TIER, _check, _run_app, _spark_submit

    jar = comet_jar()
    confs = {**comet_confs(jar, off_heap="512m"), "spark.comet.exec.window.enabled": "false",
             "spark.ui.enabled": "false", "spark.executor.memory": "512m",
             "spark.executor.extraJavaOptions": FIRST_TIER}
    confs.pop("spark.jars")
    cmd = [_spark_submit(), "--master", "local-cluster[2,1,1024]",
           "--jars", f"{fastwindow.jar_path()},{jar}",
           "--conf", "spark.sql.extensions=fastwindow.FastWindowExtensions",
           "--driver-memory", "1g", "--driver-java-options", FIRST_TIER]
    for key, value in confs.items():
        cmd += ["--conf", f"{key}={value}"]
    info = _run_app(cmd + [str(APP), "submit"], tmp_path)
    assert info["executors"] == 2, "the cluster was to have two executor JVMs"
    _check(info)
    # Comet's columnar shuffle below fastwindow's operators (it converts the ones whose
    # projections it supports).
    with_comet = {r["query"] for r in info["results"] if r["comet_on"]}
    assert {"ranking", "whole", "running", "range"} <= with_comet, with_comet
