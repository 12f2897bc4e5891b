package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.types.DataType

/**
 * The partial aggregate the two stacks combine for a sum or average whose partial sums may
 * overflow in one order and not in another: the buffer of `legacy` (a copy of `agg` that gives
 * null on overflow, never an error), and `agg`'s own result step over it.
 *
 * Updates and merges are the LEGACY copy's, so combining partials in any order never raises.
 * The result is `agg`'s evaluation, with its eval mode: where the sum fits but the result does
 * not fit the result type (a decimal average into `decimal(p + 4, s + 4)`), it fails under ANSI
 * and gives null under LEGACY and TRY, exactly as Spark's own evaluation does. Frames whose sums
 * could overflow are recomputed row by row with `agg` itself (`fastwindow.functions.SlidingGuard`).
 *
 * @param agg    the aggregate of the query (`Sum` or `Average`, any eval mode)
 * @param legacy its LEGACY copy, whose buffer has the same types as `agg`'s
 */
final case class LegacyPartial(agg: DeclarativeAggregate, legacy: DeclarativeAggregate)
  extends DeclarativeAggregate {
  require(agg.aggBufferAttributes.map(_.dataType) == legacy.aggBufferAttributes.map(_.dataType),
    s"the buffers of $agg and $legacy differ")

  override def children: Seq[Expression] = legacy.children
  override def dataType: DataType = agg.dataType
  override def nullable: Boolean = agg.nullable
  override def prettyName: String = agg.prettyName
  override lazy val aggBufferAttributes: Seq[AttributeReference] = legacy.aggBufferAttributes
  override lazy val inputAggBufferAttributes: Seq[AttributeReference] =
    legacy.inputAggBufferAttributes
  override lazy val initialValues: Seq[Expression] = legacy.initialValues
  override lazy val updateExpressions: Seq[Expression] = legacy.updateExpressions
  override lazy val mergeExpressions: Seq[Expression] = legacy.mergeExpressions

  /** `agg`'s evaluation, each of its buffer attributes read from the LEGACY buffer's. */
  override lazy val evaluateExpression: Expression = {
    val buffers = agg.aggBufferAttributes.map(_.exprId).zip(legacy.aggBufferAttributes).toMap
    agg.evaluateExpression.transform {
      case a: AttributeReference if buffers.contains(a.exprId) => buffers(a.exprId)
    }
  }

  override protected def withNewChildrenInternal(
      newChildren: IndexedSeq[Expression]): LegacyPartial =
    copy(agg = agg.withNewChildren(newChildren).asInstanceOf[DeclarativeAggregate],
      legacy = legacy.withNewChildren(newChildren).asInstanceOf[DeclarativeAggregate])
}
