package fastwindow.model

import scala.util.Try

import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.DataType

/**
 * A timestamp plus a constant number of microseconds under a day: the edge of a RANGE frame
 * over a timestamp key with a day-time interval offset shorter than a day, without the
 * zoned date-time Spark builds for each row.
 *
 * Spark adds a day-time interval in the session time zone: its whole days to the local date,
 * then the rest on the instant time line. Without whole days, that is the exact sum of the
 * microseconds, and Spark's conversion back fails with `ArithmeticException("long overflow")`
 * exactly where `Math.addExact` does.
 */
final case class TimestampPlusMicros(child: Expression, micros: Long) extends UnaryExpression {
  override def dataType: DataType = child.dataType
  override protected def nullSafeEval(input: Any): Any =
    Math.addExact(input.asInstanceOf[Long], micros)
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    defineCodeGen(ctx, ev, c => s"java.lang.Math.addExact($c, ${micros}L)")
  override protected def withNewChildInternal(newChild: Expression): TimestampPlusMicros =
    copy(child = newChild)
}

object TimestampPlusMicros {
  private val MicrosPerDay = 86400L * 1000 * 1000

  /**
   * `timestamp` plus `offset` as a [[TimestampPlusMicros]], where `offset` is a constant day-time
   * interval shorter than a day; None otherwise (Spark's own addition then applies).
   */
  def shorterThanADay(timestamp: Expression, offset: Expression): Option[Expression] =
    if (!offset.foldable) None
    else Try(offset.eval()).toOption.collect {
      case micros: Long if micros > -MicrosPerDay && micros < MicrosPerDay =>
        TimestampPlusMicros(timestamp, micros)
    }
}
