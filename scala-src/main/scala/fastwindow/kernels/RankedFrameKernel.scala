package fastwindow.kernels

import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow
import org.apache.spark.sql.types.DataType

import fastwindow.frames.{FrameLocator, RankCounts, ValueRanks}
import fastwindow.ops.ValueOps

/**
 * What the order-statistic kernels share: a buffered partition's values ranked once
 * ([[ValueRanks]], keyed by the subclass's [[setValue]]), and the frame's values kept as counts of
 * ranks ([[RankCounts]]), added and removed as the frame's edges move forward, so the frame's
 * k-th value is an O(log n) lookup.
 *
 * @param weight how many times each non-null value counts
 */
abstract class RankedFrameKernel(
    frame: FrameLocator,
    input: ValueOps,
    inputType: DataType,
    weight: Long)
  extends Kernel {

  private val scratch = new SpecificInternalRow(Seq(inputType))
  protected val ranks = new ValueRanks
  protected val counts = new RankCounts

  /** Rows `[lo, hi)` are in `counts`. */
  private var lo = 0
  private var hi = 0

  /** Whether the frame's values changed since the subclass last read them. */
  protected var frameChanged = true

  /** Sets row `r`'s key and value in `ranks` from its (non-null) value in `value`'s slot 0. */
  protected def setValue(r: Int, value: SpecificInternalRow): Unit

  override def startPartition(): Unit = frame.reset()

  override def finishPartition(n: Int): Unit = {
    ranks.start(n)
    var r = 0
    while (r < n) {
      input.write(r, scratch)
      if (!scratch.isNullAt(0)) setValue(r, scratch)
      r += 1
    }
    ranks.rank()
    counts.reset(ranks.distinct)
    lo = 0
    hi = 0
    frameChanged = true
  }

  /** Makes `counts` hold row i's frame. */
  protected def moveFrame(i: Int, n: Int): Unit = {
    frame.locate(i, n)
    val end = math.max(frame.last + 1, frame.first)
    while (hi < end) { change(hi, weight); hi += 1 }
    while (lo < frame.first) { change(lo, -weight); lo += 1 }
  }

  private def change(row: Int, count: Long): Unit = {
    val rank = ranks.rankOf(row)
    if (rank >= 0) {
      counts.add(rank, count)
      frameChanged = true
    }
  }

  override def shift(d: Int): Unit =
    throw new IllegalStateException("order statistics are never streamed")
  override def stateBytes: Long = ranks.bytes + counts.bytes
  override def stateBytesPerRow: Long = ValueRanks.BytesPerRow
}
