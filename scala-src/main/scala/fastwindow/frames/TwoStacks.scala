package fastwindow.frames

import org.apache.spark.sql.catalyst.InternalRow

import fastwindow.ops.AggregateOps

/**
 * An aggregate over a sliding frame (moving, shrinking, offset and partly unbounded ROWS frames,
 * RANGE frames) in O(n) per partition, whatever the frame's width, by two stacks of partial
 * aggregates. `frame` gives each row's frame; both its edges only move forward.
 *
 * Rows enter the frame on the "back" (one running buffer, the ops' accumulator) and leave it
 * from the "front", which holds, for each row j still in it, the partial aggregate of rows
 * j..frontLast (slot j). When the frame's first row passes frontLast, the back's rows move to the
 * front in one backward pass. Every row is added once and moved once; each result is one merge
 * of front and back. Partial buffers are always merged with the earlier rows on the left, so
 * ties (min/max of -0.0 and 0.0) resolve as in Spark's row-by-row loop. When a streaming
 * evaluator drops rows before the frame, `shift` moves the stacks' positions and slots with them.
 *
 * Combining partials in another order than Spark's loop is exact for count, min, max and
 * wrapping integral sums, and within float rounding for float sums. Where the order decides an
 * overflow or a non-finite result, `partial` carries a guard (see
 * `fastwindow.ops.AggregateRequest`), and a frame it flags is folded in Spark's order with the
 * `exact` aggregate ([[InOrderFold]]: Spark's own expressions, rows in Spark's order; given exactly
 * when there is a guard).
 *
 * Seeded with the state of the rows after the partition (`seedAfter`: a range of a window spread
 * over tasks, its frames shrinking to its end), the first write moves every row to the front and
 * the back holds that state instead: each result is its frame's slot merged with the rows after,
 * in order. The seeds are made only where no guard can fire (see
 * `fastwindow.exec.acrosstasks.RangeSeeds`): the rows after are not here to be folded.
 */
final class TwoStacks(frame: FrameLocator, partial: AggregateOps, exact: Option[AggregateOps])
  extends SlidingAggregate {

  private val inOrder = exact.map(new InOrderFold(_))

  private var first = 0
  private var end = 0
  private var frontLast = -1
  private var after: InternalRow = null

  override def reset(): Unit = {
    first = 0
    end = 0
    frontLast = -1
    after = null
    partial.reset()
    frame.reset()
    inOrder.foreach(_.reset())
  }

  override def seedAfter(state: InternalRow): Unit = after = state

  override def write(i: Int, n: Int, out: InternalRow): Unit = {
    frame.locate(i, n)
    val a = frame.first
    val b = frame.last
    if (after != null) writeWithAfter(a, b, n, out)
    else writeFrame(a, b, out)
  }

  private def writeFrame(a: Int, b: Int, out: InternalRow): Unit = {
    if (end <= b) {
      partial.addRange(end, b + 1)
      end = b + 1
    }
    if (a > first) {
      first = a
      if (first > frontLast) moveBackToFront()
    }
    val written =
      if (a > b) { partial.writeEmpty(out); true }
      else if (first <= frontLast) partial.writeMerged(first, out)
      else partial.write(out)
    // The guard fired: this frame is folded in Spark's order instead.
    if (!written) inOrder.get.write(a, b, out)
  }

  /** Row a's frame, rows `a .. n - 1`, followed by the rows after the partition. */
  private def writeWithAfter(a: Int, b: Int, n: Int, out: InternalRow): Unit = {
    if (b != n - 1) throw new IllegalStateException(s"a frame ending at row $b of $n is seeded " +
      "with the rows after the partition")
    if (frontLast < 0) {
      first = a
      end = n
      moveBackToFront()
    }
    if (!partial.writeMerged(a, out)) throw new IllegalStateException("fastwindow: a frame " +
      "seeded with the rows after its range comes near its aggregate's overflow limit")
  }

  private def moveBackToFront(): Unit = {
    partial.growSlots(end)
    partial.foldSuffix(first, end)
    frontLast = end - 1
    if (end < first) end = first
    if (after != null) partial.seed(after) else partial.reset()
  }

  override def shift(d: Int): Unit = {
    frame.shift(d)
    inOrder.foreach(_.shift(d))
    val kept = frontLast + 1 - d
    if (kept > 0) partial.moveSlots(d, 0, kept)
    first -= d
    end -= d
    frontLast -= d
  }

  override def stateBytes: Long = partial.stateBytes + inOrder.fold(0L)(_.stateBytes)

  /** The front holds one slot per buffered row. */
  override def stateBytesPerRow: Long = partial.slotBytes
}
