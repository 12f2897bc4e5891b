package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * Follows the rows of one range as a map task offers them (see [[ValueRun]]): one comparison
 * with the previous value per row, and a copy only where the value changes. A task that reads
 * several files of a table written in order reads each in order, but not the files in order
 * (Spark packs them by size): the rows are cut into runs, each in order one way or the other,
 * up to `maxRuns` (`spark.fastwindow.acrossTasks.maxValueRuns`), and the runs are added up as parts of the range are.
 */
final class ValueRunTracker(ordering: Ordering[InternalRow], maxRuns: Int) {
  private val done = scala.collection.mutable.ArrayBuffer.empty[ValueRun]
  private var first: UnsafeRow = _
  private var previous: UnsafeRow = _
  private var direction = 0 // 1: ascending, -1: descending, 0: one value so far
  private var ordered = true
  private var count = 0L

  def offer(row: UnsafeRow): Unit = if (ordered) {
    if (previous == null) start(row)
    else {
      val c = ordering.compare(previous, row)
      if (c != 0) {
        val step = if (c < 0) 1 else -1
        if (direction == 0) direction = step
        if (step == direction) {
          count += 1
          previous.copyFrom(row)
        } else if (done.length + 1 < maxRuns) {
          done += current
          start(row)
        } else ordered = false
      }
    }
  }

  private def start(row: UnsafeRow): Unit = {
    first = row.copy()
    previous = row.copy()
    direction = 0
    count = 1
  }

  private def current: ValueRun =
    if (direction >= 0) ValueRun(ordered = true, count, first, previous.copy())
    else ValueRun(ordered = true, count, previous.copy(), first)

  /** The runs so far together (Unordered when they overlap, or past the most runs). */
  def result: ValueRun =
    if (!ordered) ValueRun.Unordered
    else if (previous == null) ValueRun.Empty
    else ValueRun.concat(done.toSeq :+ current, ordering)
}
