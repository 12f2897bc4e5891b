package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The interpreted evaluation of one window function over the rows of a partition held in the
 * evaluator's columns.
 *
 * Contract (shared with the generated code of the same function, see [[KernelCode]]):
 * `startPartition()` before the partition's first row arrives; `write(i, n, out)` for its rows in
 * order, each writing the function's result for buffered row `i` (while `n` rows are buffered)
 * into the function's ordinal of `out`; `finishPartition(n)` once all `n` rows of the partition are
 * in (some may have been dropped already), before any
 * write that needs the whole partition. A buffered partition calls `finishPartition` before the
 * first write; a streamed one (see [[fastwindow.planning.StreamBounds]]) writes each row as soon
 * as the rows its result depends on have arrived, and may `shift(d)` to forget the first `d`
 * buffered rows (row `i` becomes `i - d`). Kernels are reused across partitions. Each kernel's
 * scaladoc states its cost per partition.
 */
trait Kernel {
  def startPartition(): Unit = {}
  /** Called once buffered row `r`'s columns are filled, before any later row arrives. */
  def ingested(r: Int): Unit = {}
  def finishPartition(n: Int): Unit = {}
  def write(i: Int, n: Int, out: InternalRow): Unit
  def shift(d: Int): Unit = {}
  /** Bytes of per-partition state that grows with the partition (accounted to Spark). */
  def stateBytes: Long = 0L
  /** Bytes of that state per row of a buffered partition, once its results are written. */
  def stateBytesPerRow: Long = 0L
}

/**
 * The generated twin of a [[Kernel]]: Java statements spliced into the operator's generated
 * evaluator. `start` runs when a partition starts, `finishPartition` with `n` (rows in the
 * partition) in scope, `write` with `i` (current buffered row), `n` and `out` (the result row) in
 * scope, `shift` with `d` (rows dropped from the front of the buffer) in scope, `ingested` with
 * `r` (the buffered row just filled) in scope. State lives in
 * fields the kernel registered on the codegen context; `stateBytes` is a Java `long` expression
 * for the bytes of that state that grow with the partition (empty when none does), and
 * `stateBytesPerRow` the bytes of it per row of a buffered partition once its results are written.
 */
final case class KernelCode(
    finishPartition: String,
    write: String,
    start: String = "",
    shift: String = "",
    ingested: String = "",
    stateBytes: String = "",
    stateBytesPerRow: Long = 0L)

/**
 * Where the evaluator is in the current partition, for kernels that need more than the buffered
 * row index: `base` is the partition position of buffered row 0 (rows before it were dropped
 * while streaming), and the current row's peer group (rows with equal ORDER BY keys) starts at
 * buffered row `start` and ends before `end`. `peerBreak(i)` is true when buffered row i starts a
 * new group (always for the partition's first row); it is filled while rows are ingested.
 *
 * [[advance]] must be called for i = 0, 1, ... in order; finding each group's end scans the group
 * once, so the whole partition costs O(n). While streaming, `end` is only final once the group's
 * last row has arrived; only kernels that wait for complete peer groups read it.
 */
final class PartitionCursor {
  var base: Int = 0
  var peerBreak: Array[Boolean] = new Array[Boolean](16)
  /** First buffered row of the current row's peer group. */
  var start: Int = 0
  /** One past the last buffered row of the current row's peer group. */
  var end: Int = 0
  /** 1-based number of the current peer group within the partition (dense rank). */
  var index: Int = 0

  def reset(): Unit = {
    base = 0
    start = 0
    end = 0
    index = 0
  }

  def advance(i: Int, n: Int): Unit = {
    if (peerBreak(i)) {
      start = i
      var e = i + 1
      while (e < n && !peerBreak(e)) e += 1
      end = e
      index += 1
    }
  }

  /** Forgets the first `d` buffered rows, keeping the `kept` rows after them. */
  def shift(d: Int, kept: Int): Unit = {
    System.arraycopy(peerBreak, d, peerBreak, 0, kept)
    base += d
    start -= d
    end -= d
  }
}
