package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, LongType}

/** An ANSI interval's value as a bigint: months (year-month) or microseconds (day-time). */
final case class IntervalBits(child: Expression) extends UnaryExpression {
  override def dataType: DataType = LongType
  override protected def nullSafeEval(input: Any): Any = input match {
    case months: Int => months.toLong
    case micros: Long => micros
  }
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    defineCodeGen(ctx, ev, c => s"(long) $c")
  override protected def withNewChildInternal(newChild: Expression): IntervalBits =
    copy(child = newChild)
}
