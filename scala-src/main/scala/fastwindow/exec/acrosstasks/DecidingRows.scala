package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, UnsafeProjection, UnsafeRow}

/**
 * An aggregate whose state is that of a few rows ([[StateFold.decidedByRows]]): aggregate
 * `aggregate` of a [[StateFold]], which takes the last row (else the first `rows` rows) by the
 * window's order whose `input` is not null (any row unless `ignoreNulls`). first and last take
 * one row; nth_value(x, n) the first n.
 */
final case class DecidingRow(aggregate: Int, last: Boolean, ignoreNulls: Boolean,
    input: Expression, rows: Int = 1)

/**
 * For each aggregate of a range whose state is that of a few rows ([[StateFold.decidedByRows]]),
 * those rows among the rows offered, by the window's order then by arrival: the last one (or the
 * first `rows`) whose input counts (is not null, with IGNORE NULLS), in the window's order.
 */
private[acrosstasks] final class DecidingRows(specs: Seq[DecidingRow],
    ordering: Ordering[InternalRow], input: Seq[Attribute]) {
  private val inputs = specs.map { d =>
    if (d.ignoreNulls) UnsafeProjection.create(Seq(d.input), input) else null
  }.toArray
  private val kept = specs.map(d => new FirstRows(d.rows, ordering, reverse = d.last)).toArray

  def offer(row: UnsafeRow, arrival: Long): Unit = {
    var i = 0
    while (i < kept.length) {
      if (inputs(i) == null || !inputs(i)(row).isNullAt(0)) kept(i).offer(row, arrival)
      i += 1
    }
  }

  def result: Array[Array[UnsafeRow]] = kept.map(_.sorted)
}

private[acrosstasks] object DecidingRows {

  /**
   * Each aggregate's deciding rows of the parts of one range together, from theirs (`parts` in
   * their order, which is not the window's: a tie goes to the later part for the last row, to
   * the earlier for the first rows).
   */
  def of(parts: Seq[RangeSummary], specs: Seq[DecidingRow], ordering: Ordering[InternalRow])
      : Array[Array[UnsafeRow]] =
    specs.indices.map { i =>
      val rows = parts.flatMap(_.deciding(i))
      if (rows.isEmpty) Array.empty[UnsafeRow]
      else if (specs(i).last)
        Array(rows.reduce((a, b) => if (ordering.compare(b, a) >= 0) b else a))
      else rows.sorted(ordering).take(specs(i).rows).toArray // a stable sort: ties keep part order
    }.toArray

  /** Each aggregate's deciding rows of two consecutive ranges, from theirs. */
  def inOrder(specs: Seq[DecidingRow])(before: Array[Array[UnsafeRow]],
      after: Array[Array[UnsafeRow]]): Array[Array[UnsafeRow]] =
    specs.indices.map { i =>
      if (specs(i).last) (if (after(i).nonEmpty) after(i) else before(i))
      else (before(i) ++ after(i)).take(specs(i).rows)
    }.toArray
}

/**
 * The `k` rows that come first (with `reverse`, last) by `ordering` then by arrival among those
 * offered, kept in an array in that order. A row that cannot enter costs one comparison; one that
 * enters at the end the kept rows grow towards (the last rows of rows offered in order, the
 * common case: a table written in time order) costs one more, and is copied into the bytes of the
 * row it pushes out.
 */
private[acrosstasks] final class FirstRows(k: Int, ordering: Ordering[InternalRow],
    reverse: Boolean) {
  private val rows = new Array[UnsafeRow](k)
  private val arrivals = new Array[Long](k)
  private var size = 0

  private def compare(row: UnsafeRow, arrival: Long, i: Int): Int = {
    val c = ordering.compare(row, rows(i))
    if (c != 0) c else java.lang.Long.compare(arrival, arrivals(i))
  }

  def offer(row: UnsafeRow, arrival: Long): Unit = if (k > 0) {
    if (size < k) insert(row.copy(), arrival)
    else if (!reverse) {
      if (compare(row, arrival, size - 1) < 0) {
        val slot = rows(size - 1)
        size -= 1
        slot.copyFrom(row)
        insert(slot, arrival)
      }
    } else if (compare(row, arrival, 0) > 0) {
      val slot = rows(0)
      System.arraycopy(rows, 1, rows, 0, size - 1)
      System.arraycopy(arrivals, 1, arrivals, 0, size - 1)
      size -= 1
      slot.copyFrom(row)
      insert(slot, arrival)
    }
  }

  /** Puts `row` (owned here) where it belongs among the kept rows (at the end when it is last). */
  private def insert(row: UnsafeRow, arrival: Long): Unit = {
    var at = size
    if (size > 0 && compare(row, arrival, size - 1) < 0) {
      var low = 0
      var high = size - 1
      while (low < high) {
        val mid = (low + high) >>> 1
        if (compare(row, arrival, mid) < 0) high = mid else low = mid + 1
      }
      at = low
      System.arraycopy(rows, at, rows, at + 1, size - at)
      System.arraycopy(arrivals, at, arrivals, at + 1, size - at)
    }
    rows(at) = row
    arrivals(at) = arrival
    size += 1
  }

  /** The kept rows, first to last. */
  def sorted: Array[UnsafeRow] = rows.take(size)
}
