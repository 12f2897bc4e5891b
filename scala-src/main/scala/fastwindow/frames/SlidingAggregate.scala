package fastwindow.frames

import org.apache.spark.sql.catalyst.InternalRow

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
