package fastwindow.exec.hashwindow

import org.apache.spark.sql.catalyst
  .expressions.{Attribute, AttributeSet, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.execution.UnaryExecNode

/**
 * A window of whole-partition aggregates per key, on either of its paths: shown as `FastWindow`,
 * its output the child's columns then one per window expression, in no order.
 */
trait WholePartitionAggregatesExec extends UnaryExecNode {
  def windowExpression: Seq[NamedExpression]
  def partitionSpec: Seq[Expression]

  override def nodeName: String = "FastWindow"

  override def output: Seq[Attribute] = child.output ++ windowExpression.map(_.toAttribute)

  override def producedAttributes: AttributeSet = AttributeSet(windowExpression.map(_.toAttribute))

  override def outputOrdering: Seq[SortOrder] = Nil
}
