package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.SparkContext
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.window.WindowEvaluatorFactory

/**
 * Spark 4.2+: `WindowExec`'s evaluator also counts its segment-tree frames; those counts are
 * not shown by FastWindow, so they go to metrics of their own.
 */
object WindowEvaluatorShim {
  def sparkWindowFactory(
      sc: SparkContext,
      windowExpression: Seq[NamedExpression],
      partitionSpec: Seq[Expression],
      orderSpec: Seq[SortOrder],
      childOutput: Seq[Attribute],
      spillSize: SQLMetric): WindowEvaluatorFactory =
    new WindowEvaluatorFactory(
      windowExpression,
      partitionSpec,
      orderSpec,
      childOutput,
      spillSize,
      SQLMetrics.createMetric(sc, "segment tree frames"),
      SQLMetrics.createMetric(sc, "segment tree fallback frames")
    )
}
