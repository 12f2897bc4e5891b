package fastwindow.exec

import org.apache.spark.sql.catalyst.InternalRow

import fastwindow.columns.{Column, ColumnLayout}
import fastwindow.frames.PeerGroups
import fastwindow.functions.WindowSupport
import fastwindow.model.WindowPlan
import fastwindow.ops.OpsSet

/**
 * Evaluates every window function of one [[FastWindowExec]] over one partition at a time: the
 * partition's function inputs in `columns`, its peer groups, and one kernel per function.
 *
 * Protocol, per partition: `startPartition()`, then `ingest(row)` for each of its rows in order,
 * interleaved with `write(i, out)` for i = 0, 1, ... in order, and `finishPartition()` once the
 * last row is in. `ingest` copies each function's inputs out of the row into the columns (the row
 * itself is held by the caller); `write` fills ordinal k of `out` with the k-th function's result
 * for the partition's row i. The caller only writes row i once the rows its results depend on
 * have been ingested: after `finishPartition()` for a buffered plan, or, for a streaming plan, as
 * its [[fastwindow.model.StreamBounds]] allow (see [[EmitPolicy]]). A streaming caller also calls
 * `discardBefore(i)` to drop rows no later result reads, so the buffers stay bounded.
 *
 * There is one evaluator; whether it is "generated" or "interpreted" is only a matter of its
 * `ops` (`fastwindow.codegen` or `fastwindow.ops.InterpretedOps`). Instances are reused for every
 * partition of a task, so buffers are allocated once and only grow.
 */
final class WindowEvaluator(
    plan: WindowPlan,
    layout: ColumnLayout,
    columns: Array[Column],
    ops: OpsSet,
    val generated: Boolean) {

  private val peers = new PeerGroups(plan.needsPeers)
  private val kernels = WindowSupport.kernels(plan, ops, peers)
  private val extractor = ops.extractor
  private val peerKeys = ops.peerKeys
  private var capacity = Column.InitialCapacity
  /** Rows buffered; buffered row r is the partition's row peers.base + r. */
  private var rows = 0

  /** Rows of the current partition ingested so far. */
  def numRows: Int = peers.base + rows
  /** Position of the first row still buffered (earlier rows were discarded). */
  def firstBufferedRow: Int = peers.base
  /** Position of the first row of the last (maybe still growing) peer group, if peers are needed. */
  def lastPeerGroupStart: Int = peers.base + peers.lastGroupStart
  /** Bytes held by the columns and kernel state (capacity, not just rows in use). */
  def bufferBytes: Long = layout.bytesPerRow * capacity + kernels.map(_.stateBytes).sum
  /**
   * Bytes of kernel state per row that writing a buffered partition's results builds (sliding
   * frames' partial aggregates), so they can be reserved before the first result is returned.
   */
  def stateBytesPerRow: Long = kernels.map(_.stateBytesPerRow).sum

  def startPartition(): Unit = {
    rows = 0
    peers.reset()
    kernels.foreach(_.startPartition())
  }

  def ingest(row: InternalRow): Unit = {
    val r = rows
    if (r == capacity) {
      capacity = Column.grownCapacity(capacity, r + 1)
      columns.foreach(_.grow(capacity, r))
      peers.grow(capacity)
    }
    extractor.extract(row, r)
    peers.ingested(r, peerKeys)
    rows = r + 1
    var k = 0
    while (k < kernels.length) {
      kernels(k).ingested(r)
      k += 1
    }
  }

  def finishPartition(): Unit = {
    val n = numRows  // the partition's size, also after rows were dropped
    kernels.foreach(_.finishPartition(n))
  }

  def write(row: Int, out: InternalRow): Unit = {
    val i = row - peers.base
    peers.advance(i, rows)
    var k = 0
    while (k < kernels.length) {
      kernels(k).write(i, rows, out)
      k += 1
    }
  }

  /** Drops the buffered rows before position `row` (no later `write` may read them). */
  def discardBefore(row: Int): Unit = {
    val d = row - peers.base
    if (d > 0) {
      val kept = rows - d
      columns.foreach(_.shift(d, kept))
      kernels.foreach(_.shift(d))
      peers.shift(d, kept)
      rows = kept
    }
  }
}
