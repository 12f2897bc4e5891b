package fastwindow.frames

import org.apache.spark.sql.catalyst.InternalRow

import fastwindow.ops.AggregateOps

/**
 * A sliding frame folded in Spark's order ([[InOrderFold]]), for floating-point aggregates when
 * `spark.fastwindow.exactFloats` asks for Spark's bits: O(frame width) per row where the frame's
 * first row moves (moving and shrinking frames, as in Spark), O(1) where it does not.
 */
final class InSparkOrder(frame: FrameLocator, ops: AggregateOps) extends SlidingAggregate {
  private val fold = new InOrderFold(ops)

  override def reset(): Unit = {
    frame.reset()
    fold.reset()
  }

  override def write(i: Int, n: Int, out: InternalRow): Unit = {
    frame.locate(i, n)
    fold.write(frame.first, frame.last, out)
  }

  override def shift(d: Int): Unit = {
    frame.shift(d)
    fold.shift(d)
  }

  override def stateBytes: Long = fold.stateBytes
  override def stateBytesPerRow: Long = 0L
}
