package org.apache.spark.sql.fastwindow

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.optimizer.NormalizeFloatingNumbers
import org.apache.spark.sql.types.{DataType, DoubleType, FloatType}

/** Spark's own handling of floating values where it is `private[sql]`. */
object FloatingValues {

  /** Whether `t` holds float or double values, at any depth. */
  def in(t: DataType): Boolean = t.existsRecursively(d => d == FloatType || d == DoubleType)

  /**
   * `e` with every floating value (at any depth) normalized as Spark normalizes grouping and
   * join keys: one NaN, -0.0 as 0.0; `e` itself when it holds none.
   */
  def normalized(e: Expression): Expression = NormalizeFloatingNumbers.normalize(e)
}
