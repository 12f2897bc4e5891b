package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData
import org.apache.spark.sql.types._

import fastwindow.frames.{FrameLocator, ValueRanks}
import fastwindow.ops.ValueOps

/**
 * Exact percentiles (percentile, median, percentile_cont, percentile_disc) over any frame whose
 * edges only move forward — whole, running, moving, shrinking, ROWS or RANGE — in O(n log n) per
 * partition: the partition's values are ranked once ([[ValueRanks]]), the frame's rows are kept
 * as counts of ranks ([[RankCounts]]), added and removed as the frame moves, and each percentile
 * is read from one or two order statistics. Spark sorts every frame again (O(n w log w)).
 *
 * The result is Spark's: the value at position `(count - 1) * p` of the frame's sorted values,
 * interpolated between the two neighbours when the position has a fraction and they differ
 * (continuous; with `lerpFromLower` as Spark 4.3 writes it, `lower + f * (higher - lower)`, else
 * as earlier lines do, `(1 - f) * lower + f * higher`: the two differ in the last bit), or the
 * value at position `ceil(count * p) - 1` (discrete; Spark's legacy discrete calculation is the
 * continuous one without interpolation). Nulls are skipped; an empty
 * frame gives null. Values are compared in their own type (integers, decimals by unscaled value,
 * doubles in Spark's order: NaN above all, -0.0 equal to 0.0) and converted to double as Spark
 * converts them.
 *
 * @param inputType numeric; decimals of at most 18 digits (their unscaled value is the key)
 * @param weight    how many times each non-null value counts (a constant frequency, at least 1)
 */
final class PercentileKernel(
    frame: FrameLocator,
    input: ValueOps,
    inputType: DataType,
    weight: Long,
    percentages: Array[Double],
    lerpFromLower: Boolean,
    discrete: Boolean,
    legacyDiscrete: Boolean,
    reverse: Boolean,
    asArray: Boolean,
    ordinal: Int)
  extends RankedFrameKernel(frame, input, inputType, weight) {

  private val results = new Array[Double](percentages.length)

  override protected def setValue(r: Int, value: SpecificInternalRow): Unit = inputType match {
    case ByteType => integral(r, value.getByte(0))
    case ShortType => integral(r, value.getShort(0))
    case IntegerType => integral(r, value.getInt(0))
    case LongType => integral(r, value.getLong(0))
    case FloatType => floating(r, value.getFloat(0).toDouble)
    case DoubleType => floating(r, value.getDouble(0))
    case d: DecimalType =>
      val decimal = value.getDecimal(0, d.precision, d.scale)
      ranks.set(r, decimal.toUnscaledLong, decimal.toDouble)
    case other => throw new IllegalStateException(s"percentile kernel got type ${other.sql}")
  }

  private def integral(r: Int, v: Long): Unit = ranks.set(r, v, v.toDouble)
  private def floating(r: Int, v: Double): Unit = ranks.set(r, ValueRanks.doubleKey(v), v)

  override def write(i: Int, n: Int, out: InternalRow): Unit = {
    moveFrame(i, n)
    if (counts.total == 0L) out.setNullAt(ordinal)
    else {
      if (frameChanged) {
        var k = 0
        while (k < percentages.length) {
          results(k) = percentile(percentages(k))
          k += 1
        }
        frameChanged = false
      }
      if (asArray) out.update(ordinal, UnsafeArrayData.fromPrimitiveArray(results))
      else out.setDouble(ordinal, results(0))
    }
  }

  /** The rank of the frame's k-th value (0-based) in Spark's sort direction. */
  private def rankAt(k: Long): Int = counts.kth(if (reverse) counts.total - 1 - k else k)

  private def percentile(p: Double): Double =
    if (discrete && !legacyDiscrete) {
      val higher = math.ceil(counts.total * p).toLong
      ranks.value(rankAt(math.max(higher - 1, 0L)))
    } else {
      val position = (counts.total - 1) * p
      val lower = math.floor(position).toLong
      val higher = math.ceil(position).toLong
      val lowerRank = rankAt(lower)
      if (higher == lower) ranks.value(lowerRank)
      else {
        val higherRank = rankAt(higher)
        if (higherRank == lowerRank || discrete) ranks.value(lowerRank)
        else {
          val a = ranks.value(lowerRank)
          val b = ranks.value(higherRank)
          if (lerpFromLower) a + (position - lower) * (b - a)
          else (higher - position) * a + (position - lower) * b
        }
      }
    }

}
