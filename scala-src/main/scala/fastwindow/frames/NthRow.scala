package fastwindow.frames

import fastwindow.ops.ValueOps

/**
 * nth_value over a sliding frame, in O(1) amortized per row: the row holding the frame's
 * `offset`-th value (1-based), or -1 when the frame has fewer. Spark has no merge for nth_value,
 * so the two stacks cannot run it; but its answer is a position: the frame's `offset`-th row, or
 * with IGNORE NULLS its `offset`-th row with a non-null value, from the non-null rows up to the
 * frame's end, whose head moves past the rows before the frame's start; both ends only move
 * forward, as the frame's edges do. The partition is buffered (nth_value over a sliding frame is
 * never streamed), so positions never shift.
 */
final class NthRow(frame: FrameLocator, offset: Long, ignoreNulls: Boolean, values: ValueOps) {
  private val nonNull = new NonNullRows
  private var head = 0

  def reset(): Unit = {
    frame.reset()
    nonNull.reset()
    head = 0
  }

  def find(i: Int, n: Int): Int = {
    frame.locate(i, n)
    val a = frame.first
    val b = frame.last
    if (!ignoreNulls) {
      val p = a + offset - 1
      if (a <= b && p <= b) p.toInt else -1
    } else {
      nonNull.scanTo(b, values)
      while (head < nonNull.count && nonNull(head) < a) head += 1
      val k = head + offset - 1
      if (k < nonNull.count) nonNull(k.toInt) else -1
    }
  }

  def stateBytes: Long = nonNull.bytes
}
