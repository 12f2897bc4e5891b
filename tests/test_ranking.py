"""Ranking functions against Spark: every order key type, ties, nulls, NaN, directions."""

import pytest
from helpers import assert_same_as_spark

RANKING = ["row_number()", "rank()", "dense_rank()", "percent_rank()", "cume_dist()",
           "ntile(1)", "ntile(3)", "ntile(50)"]

ORDER_KEY_TYPES = ["by", "sh", "i", "l", "f", "d", "dec", "bigdec", "s", "bin", "bo", "dt", "ts",
                   "ntz"]


def select_all(windows):
    cols = [f"{fn} over ({w}) as c{k}_{j}" for k, w in enumerate(windows)
            for j, fn in enumerate(RANKING)]
    return "select p, id, " + ", ".join(cols)


@pytest.mark.parametrize("key", ORDER_KEY_TYPES)
def test_ranking_over_each_order_key_type(spark, key):
    windows = [f"partition by p order by {key}",
               f"partition by p order by {key} desc nulls last",
               f"partition by g order by {key} nulls last, i desc nulls first"]
    assert_same_as_spark(spark, select_all(windows) + " from t")


def test_ranking_without_partition_by(spark):
    assert_same_as_spark(spark, select_all(["order by g", "order by d desc, id"]) + " from t")


def test_ranking_on_empty_input(spark):
    rows = assert_same_as_spark(spark, select_all(["partition by p order by i"]) + " from empty_t",
                                empty_input=True)
    assert rows == []


def test_ranking_on_many_tiny_partitions(spark):
    assert_same_as_spark(spark, select_all(["partition by p order by i"]) + " from tiny")


def test_ranking_with_computed_keys(spark):
    windows = ["partition by p % 2 order by i + l, upper(s)", "partition by g order by d * 2"]
    assert_same_as_spark(spark, select_all(windows) + " from t")


def test_top_k_filter_keeps_window_group_limit(spark):
    # rank() <= k plans a WindowGroupLimit below the window; results must still match.
    query = """select * from (
                 select p, id, i, rank() over (partition by p order by i) r,
                        row_number() over (partition by p order by i, id) rn from t)
               where r <= 2 and rn <= 3"""
    assert_same_as_spark(spark, query)


#: ORDER BY keys Spark sorts by its own ordering of nested values and intervals: peers are rows
#: whose keys that ordering finds equal (NaN equal to NaN, -0.0 to 0.0, inside structs too).
NESTED_AND_INTERVAL_KEYS = ["st", "arr", "named_struct('a', d, 'b', bin)", "array(f, d)",
                            "make_ym_interval(0, g)", "make_dt_interval(0, g, i, 0)"]


@pytest.mark.parametrize("key", NESTED_AND_INTERVAL_KEYS)
def test_ranking_over_nested_and_interval_keys(spark, key):
    windows = [f"partition by p order by {key}",
               f"partition by p order by {key} desc nulls last",
               f"partition by g order by {key} nulls last, i desc nulls first"]
    assert_same_as_spark(spark, select_all(windows) + " from t")
