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
