"""The outcomes of Spark's own window suites with fastwindow that are reviewed, not failures:
tests that look at Spark's own operator rather than at results, and tests that fail without
fastwindow too (see spark_suites.py, which runs the suites and sorts their failures by these)."""

from __future__ import annotations

from typing import Dict, Tuple

#: How a suite that aborted is named among the tests.
ABORTED = "<suite aborted>"

Test = Tuple[str, str]  # (suite class, test name)

DFWF = "org.apache.spark.sql.DataFrameWindowFunctionsSuite"
METRICS = "org.apache.spark.sql.execution.window.SegmentTreeWindowMetricsSuite"
ALLOWLIST = "org.apache.spark.sql.execution.window.WindowSegmentTreeAllowlistSuite"
_SEGMENT_TREE = ("reads the segment-tree metrics or routing of Spark's own WindowExec "
                 "(spark.sql.window.segmentTree.enabled); fastwindow runs the window itself, "
                 "in O(n) for these frames; its results are compared in tests/test_sliding_frames.py")

#: Tests that fail with fastwindow only because they look at Spark's own operator (its class, its
#: metrics) rather than at results, or assert an error that fastwindow's SQL extension lifts
#: (DISTINCT window aggregates), each with the test of ours that checks its intent.
PLAN_CLASS_ASSERTIONS: Dict[Test, str] = {
    ("org.apache.spark.sql.execution.RemoveRedundantWindowGroupLimitsSuite",
     "remove redundant WindowGroupLimits"):
        "counts WindowGroupLimitExec nodes; fastwindow plans FastGroupLimit there, whose final "
        "mode reads the partial's input directly when it is already clustered (the partial does "
        "no work): test_group_limit.py::"
        "test_partial_limit_is_skipped_when_its_input_is_already_clustered",
    (DFWF, "SPARK-38237: require all cluster keys for child required distribution for window "
           "query"):
        "finds the shuffle below `case w: WindowExec`; the same hashpartitioning(key1, key2) "
        "shuffle is below FastWindow: test_spark_intents.py::"
        "test_window_shuffles_by_all_cluster_keys_when_required",
    (DFWF, "window functions in multiple selects"):
        "counts the plan's exchanges (2 with TransposeWindow excluded); the lower window, by "
        "(sno, pno) over local rows, needs no shuffle with fastwindow (its keys' aggregates are "
        "joined to the rows where they are), so there is one: test_key_aggregates.py::"
        "test_sparks_window_functions_in_multiple_selects",
    ("org.apache.spark.sql.execution.adaptive.AdaptiveQueryExecSuite",
     "SPARK-50258: Fix output column order changed issue after AQE optimization"):
        "asserts the final plan's operator isInstanceOf[WindowExec]; the column order it is "
        "about holds: test_spark_intents.py::test_adaptive_replanning_keeps_the_column_order",
    **{(METRICS, name): _SEGMENT_TREE for name in (
        "T1 (G1) numPartitions > numTasks, identical length: every partition counted",
        "T2 (G2) identical-length partitions across keys",
        "T3 (G3) all-length-1 unique keys, fallback path: every partition counted",
        "T4 (G4) mixed segtree + fallback, non-aliasing order",
        "fallback path increments numSegmentTreeFallbackFrames",
        "feature flag off: both segment-tree counters stay at zero",
        "segment-tree path increments numSegmentTreeFrames (one per frame per partition)")},
    **{(ALLOWLIST, name): _SEGMENT_TREE for name in (
        "FILTER (WHERE ...) disables segment-tree path",
        "avg routes to the segment-tree path", "count routes to the segment-tree path",
        "max routes to the segment-tree path", "min routes to the segment-tree path",
        "stddev_pop routes to the segment-tree path", "stddev_samp routes to the segment-tree path",
        "sum routes to the segment-tree path", "var_pop routes to the segment-tree path",
        "var_samp routes to the segment-tree path")},
    ("org.apache.spark.sql.execution.SQLWindowFunctionSuite",
     "window function: distinct should not be silently ignored"):
        "asserts that Spark rejects sum(DISTINCT ...) OVER; fastwindow's DISTINCT extension "
        "answers it (README, \"DISTINCT window aggregates\"), against an independent reference: "
        "test_distinct.py::test_distinct_aggregates_over_every_frame_equal_an_independent_reference",
    (ALLOWLIST, "collect_list falls through (unbounded buffer)"):
        "asserts Spark's WindowExec runs collect_list (off its segment-tree path); fastwindow "
        "runs collect_list over every frame itself: test_distinct.py::"
        "test_collect_list_of_every_type_over_every_frame",
    (ALLOWLIST, "collect_set falls through (unbounded buffer)"):
        "asserts Spark's WindowExec runs collect_set; fastwindow runs Spark's own set over each "
        "frame in order (same element order): test_distinct.py::"
        "test_collect_set_arrays_and_histograms_over_every_frame",
    (ALLOWLIST, "approx_count_distinct (HyperLogLog++) falls through (fail-closed)"):
        "asserts Spark's WindowExec runs approx_count_distinct; fastwindow keeps each frame's "
        "registers of Spark's own sketch (results exactly Spark's): test_approx.py::"
        "test_approx_count_distinct_over_wide_frames_equals_spark",
    (ALLOWLIST, "percentile_approx falls through (sketch buffer not auditable)"):
        "asserts Spark's WindowExec runs percentile_approx; fastwindow runs it where Spark's "
        "answer is an order statistic and hands other partitions to Spark: test_approx.py::"
        "test_percentile_approx_over_wide_frames",
    # A streamed window holds O(frame) rows and never enters Spark's spillable window buffer, so
    # Spark's buffer thresholds do not make it spill (README, "Spark's spill thresholds").
    **{test: "expects the running sum it runs to spill at tiny window-buffer thresholds; "
             "fastwindow streams it without the buffer (same results). Buffered partitions do "
             "spill at those thresholds: test_spark_intents.py::"
             "test_spill_thresholds_apply_to_buffered_partitions and "
             "test_streamed_windows_do_not_enter_the_spillable_buffer"
       for test in (
           (DFWF, "Window spill with more than the inMemoryThreshold and spillThreshold"),
           (DFWF, "SPARK-49386: Window spill with more than the inMemoryThreshold and "
                  "spillSizeThreshold"),
           ("org.apache.spark.sql.execution.SQLWindowFunctionSuite",
            "test with low buffer spill threshold"))},
}

#: Tests that fail with and without fastwindow: the 4.2.0 test classes on the 4.3 runtime.
FAIL_WITHOUT_FASTWINDOW: Dict[Test, str] = {
    ("org.apache.spark.sql.execution.window.SegmentTreeWindowFunctionSuite", ABORTED):
        "NoSuchMethodError: TaskContextImpl's constructor changed in 4.3 (the suite's "
        "fakeTaskContext helper)",
    **{(ALLOWLIST, name): "4.3 routes order-dependent aggregates differently from the 4.2 "
                          "test's expectation"
       for name in ("first_value falls through (order-dependent aggregate)",
                    "last_value falls through (order-dependent aggregate)",
                    "mix of allowlisted + non-allowlisted aggregates falls through entirely")},
}
