package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.catalyst.expressions.{EvalMode, Expression, NumericEvalContext, TimestampAddInterval}
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum

/** Spark 4.1+: `Sum` carries a `NumericEvalContext`; timestamp + interval is `TimestampAddInterval`. */
object ArithmeticShim {
  def evalMode(sum: Sum): EvalMode.Value = sum.evalContext.evalMode

  def withEvalMode(sum: Sum, mode: EvalMode.Value): Sum =
    sum.copy(evalContext = sum.evalContext.copy(evalMode = mode))

  def sum(child: Expression, mode: EvalMode.Value): Sum = Sum(child, NumericEvalContext(mode))

  def timestampAddInterval(
      start: Expression, interval: Expression, timeZone: Option[String]): Expression =
    TimestampAddInterval(start, interval, timeZone)
}
