package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.SparkContext
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.window.WindowEvaluatorFactory

/** Spark 4.0 and 4.1: `WindowExec`'s evaluator reports its spill size only. */
object WindowEvaluatorShim {
  def sparkWindowFactory(
      sc: SparkContext,
      windowExpression: Seq[NamedExpression],
      partitionSpec: Seq[Expression],
      orderSpec: Seq[SortOrder],
      childOutput: Seq[Attribute],
      spillSize: SQLMetric): WindowEvaluatorFactory =
    new WindowEvaluatorFactory(windowExpression, partitionSpec, orderSpec, childOutput, spillSize)
}
