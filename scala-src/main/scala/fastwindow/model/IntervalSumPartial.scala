package fastwindow.model

import org.apache.spark.sql.catalyst
  .expressions.{Add, AttributeReference, Coalesce, EvalMode, Expression, If, IsNull, Literal}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.types.{DataType, LongType}

/**
 * The partial aggregate the two stacks combine for `sum` or `avg` of an ANSI interval.
 *
 * Spark adds intervals with an overflow check in every mode (ANSI or not), so combining partial
 * sums in another order than Spark's row loop could raise an error Spark does not, or miss one it
 * raises. This aggregate sums the intervals' values (months, or microseconds) as a wrapping
 * bigint instead, and counts them; its result is Spark's own evaluation of `agg` (its division
 * and rounding for avg) with those in place of Spark's buffer. It is exact wherever the frame's
 * sum of |x| stays below the guard's bound (`fastwindow.functions.SlidingGuard`), which also
 * keeps every order's partial sums within the interval's range; frames beyond it are recomputed
 * row by row with `agg` itself.
 *
 * @param agg `Sum` or `Average` of one interval-typed child
 */
final case class IntervalSumPartial(agg: DeclarativeAggregate) extends DeclarativeAggregate {
  require(IntervalSums.summed(agg), s"not a sum or average of an interval: $agg")

  private def child: Expression = agg.children.head
  override def children: Seq[Expression] = agg.children
  override def dataType: DataType = agg.dataType
  override def nullable: Boolean = true
  override def prettyName: String = agg.prettyName

  private lazy val bits = AttributeReference("bits", LongType)()
  private lazy val count = AttributeReference("count", LongType, nullable = false)()
  override lazy val aggBufferAttributes: Seq[AttributeReference] = Seq(bits, count)
  override lazy val initialValues: Seq[Expression] = Seq(Literal(null, LongType), Literal(0L))
  override lazy val updateExpressions: Seq[Expression] = Seq(
    If(IsNull(child), bits, add(Coalesce(Seq(bits, Literal(0L))), IntervalBits(child))),
    If(IsNull(child), count, add(count, Literal(1L))))
  override lazy val mergeExpressions: Seq[Expression] = Seq(
    Coalesce(Seq(add(Coalesce(Seq(bits.left, Literal(0L))), bits.right), bits.left)),
    add(count.left, count.right))

  /**
   * Spark's evaluation, its sum buffer read from `bits` (or its initial value where no value was
   * added) and its count buffer from `count`.
   */
  override lazy val evaluateExpression: Expression = {
    val buffers = agg.aggBufferAttributes.zip(agg.initialValues).map {
      case (b, initial) if IntervalSums.isInterval(b.dataType) =>
        b.exprId -> Coalesce(Seq(IntervalOfBits(bits, b.dataType), initial))
      case (b, _) if b.dataType == LongType => b.exprId -> (count: Expression)
      case (b, _) => throw new IllegalStateException(s"unexpected buffer $b of ${agg.prettyName}")
    }.toMap
    agg.evaluateExpression.transform {
      case a: AttributeReference if buffers.contains(a.exprId) => buffers(a.exprId)
    }
  }

  /** Wrapping: no order of the additions raises (frames where one would are not combined). */
  private def add(l: Expression, r: Expression): Expression = Add(l, r, EvalMode.LEGACY)

  override protected def withNewChildrenInternal(
      newChildren: IndexedSeq[Expression]): IntervalSumPartial =
    copy(agg = agg.withNewChildren(newChildren).asInstanceOf[DeclarativeAggregate])
}
