package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The evaluation of one window function over the rows of a partition held in the evaluator's
 * columns. Kernels are written once, in Scala, for both evaluators: what depends on the query's
 * expressions and types comes from the ops they are given (`fastwindow.ops`), generated or
 * interpreted.
 *
 * Contract: `startPartition()` before the partition's first row arrives; `ingested(r)` once
 * buffered row r's columns are filled; `write(i, n, out)` for its rows in order, each writing the
 * function's result for buffered row `i` (while `n` rows are buffered) into the function's
 * ordinal of `out`; `finishPartition(n)` once all `n` rows of the partition are in (some may have
 * been dropped already), before any write that needs the whole partition. A buffered partition
 * calls `finishPartition` before the first write; a streamed one (see
 * [[fastwindow.model.StreamBounds]]) writes each row as soon as the rows its result depends on
 * have arrived, and may `shift(d)` to forget the first `d` buffered rows (row `i` becomes
 * `i - d`). Kernels are reused across partitions. Each kernel's scaladoc states its cost.
 */
abstract class Kernel {
  def startPartition(): Unit = {}

  /**
   * Right after `startPartition`, for kernels whose state runs from the partition's first row:
   * start from `state` instead (the aggregation buffer of the rows before this partition, when a
   * window without PARTITION BY is spread over tasks by ranges of its ORDER BY keys).
   */
  def seed(state: InternalRow): Unit =
    throw new IllegalStateException(s"${getClass.getName} has no state to seed")

  /** Whether `ingested` does anything (only those kernels are called per ingested row). */
  def readsOnIngest: Boolean = false
  def ingested(r: Int): Unit = {}
  def finishPartition(n: Int): Unit = {}

  /**
   * After `finishPartition`: whether this partition's results can only be Spark's, e.g. where
   * whether Spark fails depends on an order fastwindow does not reproduce. The partition is then
   * handed to Spark's window evaluation.
   */
  def needsSpark: Boolean = false
  def write(i: Int, n: Int, out: InternalRow): Unit
  def shift(d: Int): Unit = {}

  /** Bytes of per-partition state that grows with the partition (accounted to Spark). */
  def stateBytes: Long = 0L

  /** Bytes of that state per row of a buffered partition, once its results are written. */
  def stateBytesPerRow: Long = 0L
}
