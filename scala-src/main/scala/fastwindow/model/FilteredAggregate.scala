package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, If, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.types.DataType

/**
 * `agg(...) FILTER (WHERE filter)`: the aggregate, updated only with the rows where `filter` is
 * true. This is how Spark's own window operator applies a filter (each update expression becomes
 * `If(filter, update, buffer)`), so results are Spark's; partial buffers (over filtered rows)
 * merge with the aggregate's own merge expressions. Its children are the aggregate's followed by
 * the filter, so rewriting the inputs to columns reaches both.
 */
final case class FilteredAggregate(agg: DeclarativeAggregate, filter: Expression)
  extends DeclarativeAggregate {
  override def children: Seq[Expression] = agg.children :+ filter
  override def dataType: DataType = agg.dataType
  override def nullable: Boolean = agg.nullable
  override def prettyName: String = agg.prettyName
  override def defaultResult: Option[Literal] = agg.defaultResult
  override lazy val aggBufferAttributes: Seq[AttributeReference] = agg.aggBufferAttributes
  override lazy val inputAggBufferAttributes: Seq[AttributeReference] = agg.inputAggBufferAttributes
  override lazy val initialValues: Seq[Expression] = agg.initialValues
  override lazy val updateExpressions: Seq[Expression] =
    agg.updateExpressions.zip(agg.aggBufferAttributes).map { case (u, b) => If(filter, u, b) }
  override lazy val mergeExpressions: Seq[Expression] = agg.mergeExpressions
  override lazy val evaluateExpression: Expression = agg.evaluateExpression
  override protected def withNewChildrenInternal(
      newChildren: IndexedSeq[Expression]): FilteredAggregate =
    copy(agg = agg.withNewChildren(newChildren.init).asInstanceOf[DeclarativeAggregate],
      filter = newChildren.last)
}
