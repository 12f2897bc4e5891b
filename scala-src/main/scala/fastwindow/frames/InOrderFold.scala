package fastwindow.frames

import org.apache.spark.sql.catalyst.InternalRow

import fastwindow.ops.AggregateOps

/**
 * An aggregate of rows `a..b` folded in row order from `a`, exactly as Spark's window frames
 * compute it: Spark's sliding and shrinking frames re-aggregate a frame from its first row
 * whenever it changes, and its growing frames add rows in order. So the result is bit for bit
 * Spark's, including floating-point rounding and where an overflow raises.
 *
 * It keeps the fold of the last frame (in the accumulator of `ops`): a frame with the same first row only
 * folds its new rows in (what a fresh fold from `a` computes, in the same order), so growing
 * frames cost O(1) per row; a frame whose first row moved is folded again, O(frame width), as
 * Spark does.
 */
final class InOrderFold(ops: AggregateOps) {

  /** Whether the accumulator holds the fold of buffered rows `first..last`. */
  private var valid = false
  private var first = 0
  private var last = -1

  def reset(): Unit = valid = false

  /**
   * Writes the aggregate of buffered rows `a..b` (empty when a > b) into `out`. `a` is negative
   * for a frame from the start of a partition whose first rows were dropped while streaming: the
   * fold of those rows is kept, and only rows from `last + 1` on are read.
   */
  def write(a: Int, b: Int, out: InternalRow): Unit = {
    if (!valid || a != first) {
      ops.reset()
      valid = true
      first = a
      last = a - 1
    }
    if (b > last) {
      ops.addRange(last + 1, b + 1)
      last = b
    }
    ops.write(out)
  }

  /** Forgets the first `d` buffered rows (positions move with them). */
  def shift(d: Int): Unit = {
    first -= d
    last -= d
  }

  def stateBytes: Long = ops.stateBytes
}

/**
 * An aggregate over a sliding frame, evaluated row by row in order (see `TwoStacks` for the
 * protocol): the two stacks, or [[InSparkOrder]].
 */
trait SlidingAggregate {
  def reset(): Unit

  /** Writes row i's result (n rows buffered) into `out`. */
  def write(i: Int, n: Int, out: InternalRow): Unit

  /** Forgets the first `d` buffered rows (streaming). */
  def shift(d: Int): Unit

  /**
   * The state of the rows after the partition (a range of a window spread over tasks, whose
   * frames all reach its end: `FrameShape.shrinksFromCurrentRow`), merged after each frame's
   * rows. Set after `reset`, before the first write.
   */
  def seedAfter(state: InternalRow): Unit =
    throw new IllegalStateException(s"${getClass.getName} has no state after its rows")

  def stateBytes: Long

  /** Bytes of state per buffered row once a buffered partition's results are written. */
  def stateBytesPerRow: Long
}

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
