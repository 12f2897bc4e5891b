package fastwindow.frames

import fastwindow.ops.AggregateOps

/**
 * An aggregate over a sliding frame (moving, shrinking, offset and partly unbounded ROWS frames,
 * RANGE frames) in O(n) per partition, whatever the frame's width, by two stacks of partial
 * aggregates. `frame` gives each row's frame; both its edges only move forward.
 *
 * Rows enter the frame on the "back" (one running buffer, slot [[Back]]) and leave it from the
 * "front", which holds, for each row j still in it, the partial aggregate of rows j..frontLast
 * (slot `Front + j`). When the frame's first row passes frontLast, the back's rows move to the
 * front in one backward pass. Every row is added once and moved once; each result is one merge
 * of front and back. Partial buffers are always merged with the earlier rows on the left, so
 * ties (min/max of -0.0 and 0.0) resolve as in Spark's row-by-row loop. When a streaming
 * evaluator drops rows before the frame, `shift` moves the stacks' positions and slots with them.
 *
 * Combining partials in another order than Spark's loop is exact for count, min, max and
 * wrapping integral sums, and within float rounding for float sums. Where the order decides an
 * overflow or a non-finite result, `partial` carries a guard (see
 * `fastwindow.ops.AggregateRequest`), and a frame it flags is recomputed row by row with the
 * `exact` aggregate, Spark's own expressions in Spark's order (given exactly when there is a guard).
 */
final class TwoStacks(frame: FrameLocator, partial: AggregateOps, exact: Option[AggregateOps]) {
  import TwoStacks._

  private var first = 0
  private var end = 0
  private var frontLast = -1

  def reset(): Unit = {
    first = 0
    end = 0
    frontLast = -1
    partial.init(Back)
    frame.reset()
  }

  /** Evaluates row i's frame; returns the ops whose `writeResult` writes it. */
  def evaluate(i: Int, n: Int): AggregateOps = {
    frame.locate(i, n)
    val a = frame.first
    val b = frame.last
    if (end <= b) {
      partial.updateRange(Back, end, b + 1)
      end = b + 1
    }
    if (a > first) {
      first = a
      if (first > frontLast) moveBackToFront()
    }
    val s =
      if (a > b) { partial.init(Scratch); Scratch }
      else if (first <= frontLast) { partial.merge(Scratch, Front + first, Back); Scratch }
      else Back
    if (a <= b && partial.needsExact(s)) {
      val rowByRow = exact.get
      rowByRow.init(0)
      rowByRow.updateRange(0, a, b + 1)
      rowByRow.evaluate(0)
      rowByRow
    } else {
      partial.evaluate(s)
      partial
    }
  }

  private def moveBackToFront(): Unit = {
    partial.growSlots(Front + end)
    partial.foldSuffix(Front, first, end)
    frontLast = end - 1
    if (end < first) end = first
    partial.init(Back)
  }

  /** Forgets the first `d` buffered rows (streaming). */
  def shift(d: Int): Unit = {
    frame.shift(d)
    val kept = frontLast + 1 - d
    if (kept > 0) partial.moveSlots(Front + d, Front, kept)
    first -= d
    end -= d
    frontLast -= d
  }

  def stateBytes: Long = partial.stateBytes + exact.fold(0L)(_.stateBytes)

  /** The front holds one slot per buffered row. */
  def stateBytesPerRow: Long = partial.slotBytes
}

object TwoStacks {
  /** The back stack's running buffer. */
  val Back = 0
  /** Where a result is merged before evaluation. */
  val Scratch = 1
  /** The front slot of buffered row j is `Front + j`. */
  val Front = 2
}
