package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.aggregate.{Average, DeclarativeAggregate, Sum}
import org.apache.spark.sql.types.{DataType, DayTimeIntervalType, YearMonthIntervalType}

/**
 * Which aggregates are sums of ANSI intervals (`sum` and `avg` of one interval, which the two
 * stacks combine as an [[IntervalSumPartial]]), and how large their sums may grow before a
 * partial sum in some order could overflow.
 */
object IntervalSums {
  def isInterval(t: DataType): Boolean =
    t.isInstanceOf[YearMonthIntervalType] || t.isInstanceOf[DayTimeIntervalType]

  /** Whether `agg` is a sum or average of an ANSI interval. */
  def summed(agg: DeclarativeAggregate): Boolean = agg match {
    case _: Sum | _: Average => agg.children.size == 1 && isInterval(agg.children.head.dataType)
    case _ => false
  }

  /**
   * Half the largest magnitude of a sum of the intervals of `agg`'s input (its buffer holds
   * months as an int, microseconds as a long): below it as a sum of |x| (in double), no partial
   * sum overflows in any order.
   */
  def safeMagnitude(agg: DeclarativeAggregate): Double = agg.children.head.dataType match {
    case _: YearMonthIntervalType => math.pow(2, 30)
    case _ => math.pow(2, 62)
  }
}
