package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * What the task of one range starts from: its own row count, the rows before it and in the whole
 * window (0 when it is the whole window), the peer groups (distinct ORDER BY values) before it
 * when dense_rank needs them, the seeded functions' states (function k's at `states(k)`, null for
 * the others: a running aggregate's is the state of the rows before the range, a whole frame's
 * that of every row of the window) and, for halo functions, the rows of the neighbouring ranges
 * it reads (in the window's order).
 */
final case class RangeSeed(
    rows: Long,
    rowsBefore: Long,
    windowRows: Long,
    groupsBefore: Long,
    states: Array[InternalRow],
    before: Array[UnsafeRow],
    after: Array[UnsafeRow]) {

  /**
   * Whether the range holds the whole window (one task after adaptive coalescing, or every row in
   * one range: a single ORDER BY value): no rows before it, whose states are the initial ones,
   * so Spark's own evaluation can take it over.
   */
  def wholeWindow: Boolean = rowsBefore == 0 && (windowRows == 0 || windowRows == rows)

  /**
   * Whether this is the seed of a range of a window (whose size and, for each seeded function,
   * state it gives), not the empty seed of a task that holds a whole window.
   */
  def ofRange: Boolean = windowRows > 0
}
