package fastwindow.exec.grouplimit

import java.util.Comparator

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}

import fastwindow.frames.RankLimit

/**
 * A rank-like limit over rows sorted by (PARTITION BY keys, ORDER BY keys), as Spark's
 * `WindowGroupLimitExec` applies it: per group, the rows whose row_number, rank or dense_rank is
 * at most `limit`, streamed, the rest of the group skipped. The sorted path of
 * [[HashGroupLimitExec]] when its groups do not fit in memory. Groups are told apart by their
 * keys' bytes (the planner only accepts key types for which that is equality).
 */
final class SortedGroupLimit(
    sorted: Iterator[InternalRow],
    keyOf: UnsafeProjection,
    rank: RankLimit,
    limit: Int,
    order: Comparator[UnsafeRow])
  extends Iterator[InternalRow] {

  private var key: UnsafeRow = _
  private var previous: UnsafeRow = _
  private var rowsInGroup = 0

  /** The previous row's row_number, rank or dense_rank. */
  private var value = 0
  private var nextRow: UnsafeRow = _

  override def hasNext: Boolean = nextRow != null || advance()

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    val row = nextRow
    nextRow = null
    row
  }

  private def advance(): Boolean = {
    while (sorted.hasNext) {
      val row = sorted.next().asInstanceOf[UnsafeRow]
      val rowKey = keyOf(row)
      if (key == null || rowKey != key) {
        key = rowKey.copy()
        rowsInGroup = 0
        value = 0
        previous = null
      }
      if (value <= limit) {
        val peer = previous != null && order.compare(previous, row) == 0
        rowsInGroup += 1
        value = rank match {
          case RankLimit.RowNumber => rowsInGroup
          case RankLimit.Rank => if (peer) value else rowsInGroup
          case RankLimit.DenseRank => if (peer) value else value + 1
        }
        if (value <= limit) {
          // The sorter reuses its row; the next comparison needs this one.
          previous = row.copy()
          nextRow = row
          return true
        }
      }
    }
    false
  }
}
