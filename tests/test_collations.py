"""Collated strings (Spark 4.0+): peers of collated ORDER BY keys, and min/max of collated
strings, as Spark's collation compares them (under UTF8_LCASE 'b' and 'B' are peers and either
may be a frame's minimum: the first one in the frame, as in Spark's row loop).

Ranking and RANGE frames find peers with Spark's own equality for the key's type; min/max run
Spark's own expressions. Distinct counts and modes of non-binary collations fall back
(test_distinct.py, test_mode.py).
"""

from __future__ import annotations

import pytest
from helpers import RUNNING_ROWS, SPARK_LINE, WHOLE, assert_same_as_spark, run, session_confs

pytestmark = pytest.mark.skipif(SPARK_LINE < (4, 0), reason="Spark 3.5 has no collations")

COLLATIONS = ["utf8_lcase", "unicode_ci", "unicode"]
SLIDING = ["rows between 2 preceding and current row",
           "rows between current row and unbounded following",
           "range between current row and unbounded following"]


@pytest.mark.parametrize("collation", COLLATIONS)
def test_ranking_and_peers_of_collated_keys(spark, collation):
    key = f"s collate {collation}"
    query = f"""select p, id,
                  rank() over w r, dense_rank() over w dr, percent_rank() over w pr,
                  cume_dist() over w cd, count(*) over w c, sum(i) over w si,
                  sum(l) over (partition by p order by {key} desc
                               range between current row and unbounded following) sl,
                  row_number() over (partition by p order by {key}, id) rn
                from t window w as (partition by p order by {key})"""
    assert_same_as_spark(spark, query)


@pytest.mark.parametrize("collation", COLLATIONS)
def test_min_max_of_collated_strings(spark, collation):
    """Over every frame kind, in one query (column c<frame>_<function>)."""
    x = f"s collate {collation}"
    aggregates = [f"min({x})", f"max({x})", f"min_by(i, {x})", f"max_by(id, {x})"]
    cols = ", ".join(f"{a} over (partition by p order by g, id {frame}) c{f}_{k}"
                     for f, frame in enumerate([WHOLE, RUNNING_ROWS] + SLIDING)
                     for k, a in enumerate(aggregates))
    assert_same_as_spark(spark, f"select p, id, {cols} from t")


def test_collated_max_keeps_one_task_without_partition_by(spark):
    """A running max of strings spreads over ranges of its ORDER BY (merged states are exact);
    under a collation, equal strings of different bytes make the first the max, which merged
    ranges cannot know: one task, with the reason."""
    query = "select id, max(s collate utf8_lcase) over (order by id) m from t"
    with session_confs(spark, {"spark.fastwindow.acrossTasks.enabled": "true"}):
        assert_same_as_spark(spark, query)
        fast = run(spark, query, fastwindow_on=True)
    assert any("in one task: max" in (r.note or "") for r in fast.reports), fast.reports


def test_nested_collated_keys(spark):
    query = """select p, id,
                 rank() over (partition by p order by named_struct('a', s collate utf8_lcase, 'b', g)) a,
                 dense_rank() over (order by array(s collate unicode_ci)) b
               from t"""
    assert_same_as_spark(spark, query)
