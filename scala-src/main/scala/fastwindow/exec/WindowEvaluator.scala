package fastwindow.exec

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Evaluates every window function of one [[FastWindowExec]] over one partition at a time.
 *
 * Protocol, per partition: `startPartition()`, then `ingest(row)` for each of its rows in order,
 * interleaved with `write(i, out)` for i = 0, 1, ... in order, and `finishPartition()` once the
 * last row is in. `ingest` copies each function's inputs out of the row into columnar buffers
 * (the row itself is held by the caller); `write` fills ordinal k of `out` with the k-th
 * function's result for the partition's row i. The caller only writes row i once the rows its
 * results depend on have been ingested: after `finishPartition()` for a buffered plan, or, for a
 * streaming plan, as its [[fastwindow.planning.StreamBounds]] allow. A streaming caller also calls
 * `discardBefore(i)` to drop rows no later result reads, so the buffers stay bounded.
 *
 * Two implementations keep this contract: a class generated and compiled per operator
 * ([[fastwindow.codegen.EvaluatorCodegen]]) and [[InterpretedEvaluator]], its twin, used when
 * compilation fails or when `spark.fastwindow.codegen.mode=NO_CODEGEN`. Instances are reused for
 * every partition of a task, so buffers are allocated once and only grow.
 */
abstract class WindowEvaluator {
  def startPartition(): Unit
  def ingest(row: InternalRow): Unit
  /** Rows of the current partition ingested so far. */
  def numRows: Int
  /** Position of the first row of the last (maybe still growing) peer group, if peers are needed. */
  def lastPeerGroupStart: Int
  def finishPartition(): Unit
  def write(i: Int, out: InternalRow): Unit
  /** Position of the first row still buffered (earlier rows were discarded). */
  def firstBufferedRow: Int
  /** Drops the buffered rows before position `i` (no later `write` may read them). */
  def discardBefore(i: Int): Unit
  /** Bytes held by the columnar buffers and kernel state (capacity, not just rows in use). */
  def bufferBytes: Long
  /**
   * Bytes of kernel state per row that writing a buffered partition's results builds (sliding
   * frames' partial aggregates), so they can be reserved before the first result is returned.
   */
  def stateBytesPerRow: Long
}
