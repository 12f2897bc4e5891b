package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow

/**
 * The interpreted evaluation of one window function over the buffered partition.
 *
 * Contract (shared with the generated code of the same function, see [[KernelCode]]):
 * `finishPartition(n)` is called once all `n` rows of a partition are in the columns, then
 * `write(i, out)` for i = 0, 1, ..., n-1 in order, each writing the function's result for row `i`
 * into its ordinal of `out`. Kernels are reused across partitions and must reset in
 * `finishPartition`. Each kernel's scaladoc states its cost per partition.
 */
trait Kernel {
  def finishPartition(n: Int): Unit
  def write(i: Int, out: InternalRow): Unit
}

/**
 * The generated twin of a [[Kernel]]: Java statements spliced into the operator's generated
 * evaluator. `finishPartition` runs with `n` (rows in the partition) in scope; `write` runs with
 * `i` (current row), `n` and `out` (the result row) in scope. State lives in fields the kernel
 * registered on the codegen context.
 */
final case class KernelCode(finishPartition: String, write: String)

/**
 * Where the peer group (rows with equal ORDER BY keys) of the current row starts and ends, for
 * kernels whose results depend on ties. `peerBreak(i)` is true when row i starts a new group; it is
 * filled during ingest by comparing each row's keys with the previous row's.
 *
 * [[advance]] must be called for i = 0, 1, ... in order; finding each group's end scans the group
 * once, so the whole partition costs O(n).
 */
final class PeerGroups {
  var peerBreak: Array[Boolean] = new Array[Boolean](16)
  /** First row of the current row's peer group. */
  var start: Int = 0
  /** One past the last row of the current row's peer group. */
  var end: Int = 0
  /** 1-based number of the current peer group within the partition (dense rank). */
  var index: Int = 0

  def advance(i: Int, n: Int): Unit = {
    if (i == 0 || peerBreak(i)) {
      start = i
      var e = i + 1
      while (e < n && !peerBreak(e)) e += 1
      end = e
      index = if (i == 0) 1 else index + 1
    }
  }
}
