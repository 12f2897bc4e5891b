"""counter_diff (Spark 4.3): the increase of a monotonic counter between consecutive rows, a
reset counting from zero, with or without the counter's start time. fastwindow runs Spark's own
expressions row by row over the function's running frame: values, nulls and errors are Spark's.
"""

from __future__ import annotations

import pytest
from helpers import SPARK_LINE, assert_same_as_spark, assert_same_error

pytestmark = pytest.mark.skipif(SPARK_LINE < (4, 3), reason="counter_diff is new in Spark 4.3")

#: Counters that grow and reset (wrap at 50), with nulls, in 3 partitions and a NULL one; their
#: start time moves forward every 40 rows.
COUNTERS = """(select case when id % 37 = 36 then null else id % 4 end p, id,
                 case when id % 13 = 6 then null else (id div 4) * 7 % 50 end c,
                 timestamp'2024-01-01 00:00:00' + make_dt_interval(0, id div 40) st
               from range(400))"""


@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "no_ansi"])
@pytest.mark.parametrize("cast", ["int", "bigint", "double", "decimal(12,2)", "smallint"])
def test_counter_diff(spark, cast, ansi):
    query = f"""select p, id,
                  counter_diff(cast(c as {cast})) over w a,
                  counter_diff(cast(c as {cast}), st) over w b,
                  row_number() over w rn, lag(c) over w lg
                from {COUNTERS} window w as (partition by p order by id)"""
    assert_same_as_spark(spark, query, ansi=ansi)


def test_counter_diff_without_partition_by(spark):
    query = f"select id, counter_diff(c) over (order by id) a from {COUNTERS}"
    assert_same_as_spark(spark, query)


def test_negative_counter_fails_as_in_spark(spark):
    query = f"select id, counter_diff(c - 40) over (partition by p order by id) a from {COUNTERS}"
    assert_same_error(spark, query)


def test_decreasing_start_time_fails_as_in_spark(spark):
    query = f"""select id, counter_diff(c, st - make_dt_interval(0, id % 3)) over
                  (partition by p order by id) a from {COUNTERS}"""
    assert_same_error(spark, query)
