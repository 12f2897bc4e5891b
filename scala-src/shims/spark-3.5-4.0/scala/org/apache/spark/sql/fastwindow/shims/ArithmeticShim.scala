package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.catalyst.expressions.{EvalMode, Expression, TimeAdd}
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum

/** Spark 3.5 and 4.0: `Sum` carries a bare eval mode; timestamp + interval is `TimeAdd`. */
object ArithmeticShim {
  def evalMode(sum: Sum): EvalMode.Value = sum.evalMode

  def withEvalMode(sum: Sum, mode: EvalMode.Value): Sum = sum.copy(evalMode = mode)

  def sum(child: Expression, mode: EvalMode.Value): Sum = Sum(child, mode)

  def timestampAddInterval(start: Expression, interval: Expression, timeZone: Option[String])
      : Expression = TimeAdd(start, interval, timeZone)
}
