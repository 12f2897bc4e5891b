package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, YearMonthIntervalType}

/**
 * A bigint of months or microseconds as an interval of `dataType`. Only given values that fit
 * (the guard's bound, see [[IntervalSumPartial]]).
 */
final case class IntervalOfBits(child: Expression, dataType: DataType) extends UnaryExpression {
  private def months: Boolean = dataType.isInstanceOf[YearMonthIntervalType]
  override protected def nullSafeEval(input: Any): Any = {
    val value = input.asInstanceOf[Long]
    if (months) value.toInt else value
  }
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    defineCodeGen(ctx, ev, c => if (months) s"(int) $c" else c)
  override protected def withNewChildInternal(newChild: Expression): IntervalOfBits =
    copy(child = newChild)
}
