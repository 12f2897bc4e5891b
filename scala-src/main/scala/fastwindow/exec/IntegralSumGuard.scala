package fastwindow.exec

import org.apache.spark.sql.catalyst.expressions.{Expression, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.{DeclarativeAggregate, Sum}
import org.apache.spark.sql.types.{ByteType, DataType, IntegerType, LongType, ShortType}

/**
 * Whether a group's integral sums are the same in every order of its rows. Spark adds a group's
 * rows in the order its sort leaves them (not always the input order), and under ANSI or TRY
 * arithmetic whether a sum overflows depends on that order. Per group and sum this keeps the sum
 * of the positive and of the negative inputs: while both fit in a long, every partial sum, in any
 * order, lies between them, so no order overflows and every order gives the exact sum.
 * `inputs` projects the sums' inputs, of integral types of `widths` bytes.
 */
final class IntegralSumGuard(inputs: UnsafeProjection, widths: Array[Int]) {
  private val sums = widths.length
  /** Group g, sum k: positive part at 2 * (g * sums + k), negative part right after. */
  private var parts = new Array[Long](32 * sums)
  private var overflowed = false

  /** Bytes per group. */
  def bytesPerGroup: Long = 16L * sums

  /** Whether some group's parts left the long range (an order could overflow). */
  def mayOverflow: Boolean = overflowed

  def add(group: Int, row: UnsafeRow): Unit = {
    val values = inputs(row)
    if (2 * (group + 1) * sums > parts.length) {
      parts = java.util.Arrays.copyOf(parts, math.max(parts.length * 2, 2 * (group + 1) * sums))
    }
    var k = 0
    while (k < sums) {
      if (!values.isNullAt(k)) {
        val v = GroupIds.integralValue(values, k, widths(k))
        val at = 2 * (group * sums + k) + (if (v < 0) 1 else 0)
        val sum = parts(at) + v
        // Same-sign addition overflowed when the result's sign differs from the operands'.
        if ((sum ^ v) < 0) overflowed = true
        parts(at) = sum
      }
      k += 1
    }
  }
}

object IntegralSumGuard {
  /** The inputs of the integral sums among `aggregates`: what a guard watches. */
  def inputsOf(aggregates: Seq[DeclarativeAggregate]): Seq[Expression] =
    aggregates.collect { case s: Sum if integral(s.child.dataType) => s.child }

  private def integral(t: DataType): Boolean = t match {
    case ByteType | ShortType | IntegerType | LongType => true
    case _ => false
  }
}
