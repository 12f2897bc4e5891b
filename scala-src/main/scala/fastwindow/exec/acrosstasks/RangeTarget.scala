package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodegenFallback, ExprCode, FalseLiteral}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{DataType, IntegerType}

/**
 * The int a row's ORDER BY keys hash to so that `HashPartitioning(RangeTarget(keys), n)` puts it in
 * the partition of its range: the preimage of the range's index (see [[RangeBounds]]). Shown as
 * `fastwindow_range(keys)` in plans.
 */
case class RangeTarget(children: Seq[Expression], bounds: RangeBounds)
  extends Expression with CodegenFallback {

  override def nullable: Boolean = false
  override def dataType: DataType = IntegerType
  override def prettyName: String = "fastwindow_range"
  override protected def stringArgs: Iterator[Any] = children.iterator

  @transient private lazy val keys = UnsafeProjection.create(children)

  def targetOf(input: InternalRow): Int =
    bounds.preimage(bounds.partitionOf(bounds.takeRangeOf(input, keys)))

  override def eval(input: InternalRow): Any = targetOf(input)

  // Called from the shuffle's partitioning projection, once per row: an int, not boxed.
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    if (ctx.INPUT_ROW == null || ctx.currentVars != null) super.doGenCode(ctx, ev)
    else {
      val self = ctx.addReferenceObj("rangeTarget", this)
      ev.copy(
        code = code"final int ${ev.value} = $self.targetOf(${ctx.INPUT_ROW});",
        isNull = FalseLiteral)
    }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): RangeTarget =
    copy(children = newChildren)
}
