package fastwindow.exec.window

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Evaluates every window function of one [[FastWindowExec]] over one partition at a time.
 *
 * Protocol, per partition: `startPartition()`, then `ingest(row)` for each of its rows in order,
 * interleaved with `write(i, out)` for i = 0, 1, ... in order, and `finishPartition()` once the
 * last row is in. `ingest` copies each function's inputs out of the row (the row itself is held
 * by the caller); `write` fills ordinal k of `out` with the k-th function's result for the
 * partition's row i. The caller only writes row i once the rows its results depend on have been
 * ingested: after `finishPartition()` for a buffered plan, or, for a streaming plan, as its
 * [[fastwindow.model.StreamBounds]] allow (see [[EmitPolicy]]). A streaming caller also calls
 * `discardBefore(i)` to drop rows no later result reads, so the buffers stay bounded.
 *
 * The one implementation is [[KernelEvaluator]]; this class is what the rest of the operator
 * sees, because each operator's generated evaluator runs its own copy of the kernel classes
 * ([[AlgorithmIsolation]]). (A class, not a trait: its methods are called for every row, and a
 * virtual call is cheaper than an interface call.)
 */
abstract class WindowEvaluator extends PeerProgress {

  /** Whether its ops are generated code (else their interpreted twins). */
  def generated: Boolean

  /** Rows of the current partition ingested so far. */
  def numRows: Int

  /** Position of the first row still buffered (earlier rows were discarded). */
  def firstBufferedRow: Int

  /** Bytes held by the columns and kernel state (capacity, not just rows in use). */
  def bufferBytes: Long

  /**
   * Bytes of kernel state per row that writing a buffered partition's results builds (sliding
   * frames' partial aggregates), so they can be reserved before the first result is returned.
   */
  def stateBytesPerRow: Long
  def startPartition(): Unit

  /**
   * Every partition from now on is a range of a window of `windowRows` rows (0: of itself), after
   * `rowsBefore` rows and `groupsBefore` peer groups, with `states(k)` as function k's seed where
   * not null (a window spread over tasks: see `fastwindow.exec.acrosstasks`).
   */
  def seed(rowsBefore: Int, windowRows: Int, groupsBefore: Int, states: Array[InternalRow]): Unit
  def ingest(row: InternalRow): Unit
  def finishPartition(): Unit

  /** After `finishPartition`: whether only Spark can give this partition's results. */
  def needsSpark: Boolean
  def write(row: Int, out: InternalRow): Unit

  /** Drops the buffered rows before position `row` (no later `write` may read them). */
  def discardBefore(row: Int): Unit
}
