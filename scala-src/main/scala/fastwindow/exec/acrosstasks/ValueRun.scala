package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * The distinct ORDER BY values among one map task's rows of a range, when those rows arrived in
 * the window's order or its reverse (a table written in that order: the common time series):
 * their count and the lowest and highest value (rows, compared by the window's order). Otherwise
 * `ordered` is false, and the count is not known without sorting.
 */
final case class ValueRun(ordered: Boolean, count: Long, low: UnsafeRow, high: UnsafeRow)

object ValueRun {
  val Unordered: ValueRun = ValueRun(ordered = false, 0L, null, null)
  val Empty: ValueRun = ValueRun(ordered = true, 0L, null, null)

  /**
   * The run of the rows of several runs together (map tasks' parts of a range, or consecutive
   * ranges): exact when each is ordered and their spans of values meet at most at their ends
   * (a value at both ends is counted once); Unordered otherwise.
   */
  def concat(parts: Seq[ValueRun], ordering: Ordering[InternalRow]): ValueRun = {
    val runs = parts.filter(r => !r.ordered || r.count > 0)
    if (runs.isEmpty) Empty
    else if (runs.exists(!_.ordered)) Unordered
    else {
      val byLow = runs.sortWith((a, b) => ordering.compare(a.low, b.low) < 0)
      var count = byLow.head.count
      var high = byLow.head.high
      byLow.tail.foreach { run =>
        val c = ordering.compare(high, run.low)
        if (c > 0) return Unordered // the spans overlap: values may repeat
        count += run.count - (if (c == 0) 1 else 0)
        high = run.high
      }
      ValueRun(ordered = true, count, byLow.head.low, high)
    }
  }
}
