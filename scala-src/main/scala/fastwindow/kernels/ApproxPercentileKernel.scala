package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow
import org.apache.spark.sql.catalyst.expressions.aggregate.ApproximatePercentile
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types._

import fastwindow.frames.{FrameLocator, PeerGroups, ValueRanks}
import fastwindow.ops.ValueOps

/**
 * `percentile_approx(x, p, accuracy)` over any frame whose edges only move forward, where its
 * result is provably Spark's, in O(n log n) per partition; Spark sketches every frame again.
 *
 * Spark's sketch (Greenwald-Khanna summaries) keeps every value of a frame of fewer than about
 * `accuracy / 2` values as its own sample, whatever the order they came in: its error terms
 * (`floor(2 * count / accuracy)`) are 0 and nothing is merged. Its answer is then an order
 * statistic of the frame's values converted to double: the smallest for `p <= 1 / accuracy`,
 * the largest for `p >= 1 - 1 / accuracy`, else the `ceil(p * count)`-th (at most the
 * largest). A partition with a larger frame is handed to Spark ([[needsSpark]]), as is one with
 * a NaN or -0.0, whose place among the samples depends on the batches Spark's sketch sorts them in.
 * Each result is converted back to the input's type by Spark's own `eval`.
 *
 * @param locator the frame's locator over a walk of the peer groups
 * @param scalar  Spark's aggregate with a single percentage, to convert a result as Spark does
 */
final class ApproxPercentileKernel(
    locator: PeerGroups => FrameLocator,
    peers: PeerGroups,
    input: ValueOps,
    inputType: DataType,
    percentages: Array[Double],
    accuracy: Long,
    scalar: ApproximatePercentile,
    asArray: Boolean,
    ordinal: Int)
  extends RankedFrameKernel(locator(peers), input, inputType, 1L) {

  private val relativeError = 1.0 / accuracy

  /** The most values a frame may hold for Spark's sketch to keep them all. */
  private val exactUpTo = {
    var c = math.max(math.floor(1.0 / (2 * relativeError)).toLong - 2, 0L)
    while (math.floor(2 * relativeError * (c + 1)).toLong == 0L) c += 1
    c
  }
  private val writeResult =
    new ValueWriter(ordinal, if (asArray) ArrayType(inputType, false) else inputType)
  private val results = new Array[Any](percentages.length)

  /** Each rank's value as Spark returns it, converted once. */
  private var converted = new Array[Any](16)
  private var values = 0L
  private var unordered = false
  private var outgrown = false

  override protected def setValue(r: Int, value: SpecificInternalRow): Unit = {
    val d = inputType match {
      case ByteType => value.getByte(0).toDouble
      case ShortType => value.getShort(0).toDouble
      case IntegerType | DateType | _: YearMonthIntervalType => value.getInt(0).toDouble
      case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType =>
        value.getLong(0).toDouble
      case FloatType => value.getFloat(0).toDouble
      case DoubleType => value.getDouble(0)
      case t: DecimalType => value.getDecimal(0, t.precision, t.scale).toDouble
      case other => throw new IllegalStateException(s"percentile_approx kernel got ${other.sql}")
    }
    unordered ||= d.isNaN || (d == 0.0 && 1.0 / d < 0)
    values += 1
    ranks.set(r, ValueRanks.doubleKey(d), d)
  }

  override def finishPartition(n: Int): Unit = {
    values = 0L
    unordered = false
    super.finishPartition(n)
    if (converted.length < ranks.distinct) converted = new Array[Any](ranks.distinct * 2)
    java.util.Arrays.fill(converted.asInstanceOf[Array[AnyRef]], 0, ranks.distinct, null)
    outgrown = values > exactUpTo && largestFrame(n) > exactUpTo
  }

  /** The most values any frame of the partition holds, walking its frames once. */
  private def largestFrame(n: Int): Long = {
    val before = new Array[Int](n + 1)
    (0 until n).foreach(r => before(r + 1) = before(r) + (if (ranks.rankOf(r) >= 0) 1 else 0))
    val walk = peers.replay()
    val frame = locator(walk)
    frame.reset()
    var largest = 0L
    var i = 0
    while (i < n && largest <= exactUpTo) {
      walk.advance(i, n)
      frame.locate(i, n)
      val end = math.min(math.max(frame.last + 1, frame.first), n)
      largest = math.max(largest, before(end) - before(math.min(frame.first, end)))
      i += 1
    }
    largest
  }

  override def needsSpark: Boolean = unordered || outgrown

  override def write(i: Int, n: Int, out: InternalRow): Unit = {
    moveFrame(i, n)
    if (counts.total == 0L || percentages.isEmpty) out.setNullAt(ordinal)
    else {
      if (frameChanged) {
        var k = 0
        while (k < percentages.length) {
          results(k) = valueOf(counts.kth(indexOf(percentages(k))))
          k += 1
        }
        frameChanged = false
      }
      writeResult(out, if (asArray) new GenericArrayData(results.clone()) else results(0))
    }
  }

  /** The 0-based position of Spark's answer among the frame's sorted values. */
  private def indexOf(p: Double): Long = {
    val count = counts.total
    if (p <= relativeError) 0L
    else if (p >= 1 - relativeError) count - 1
    else math.min(math.ceil(p * count).toLong, count) - 1
  }

  private def valueOf(rank: Int): Any = {
    if (converted(rank) == null) {
      val digest = new ApproximatePercentile.PercentileDigest(relativeError)
      digest.add(ranks.value(rank))
      converted(rank) = scalar.eval(digest)
    }
    converted(rank)
  }

  override def stateBytes: Long = super.stateBytes + 8L * converted.length
  override def stateBytesPerRow: Long = super.stateBytesPerRow + 8L
}
