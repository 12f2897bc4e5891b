package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * The `k` rows that come first (with `reverse`, last) by `ordering` then by arrival among those
 * offered, kept in a ring in that order. A row offered in the order the kept rows move in (with
 * `reverse`, after the last kept row: a table written in time order; without, before the first:
 * such a table read for a descending order) costs one comparison: it is copied into the bytes of
 * the row it pushes out, and the ring turns. A row that cannot enter costs one or two; any other
 * is placed by a binary search, the rows on its shorter side moved by one.
 */
private[acrosstasks] final class FirstRows(k: Int, ordering: Ordering[InternalRow],
    reverse: Boolean) {
  private val rows = new Array[UnsafeRow](k)
  private val arrivals = new Array[Long](k)
  private var head = 0 // the slot of the first kept row
  private var size = 0

  private def slot(i: Int): Int = if (head + i >= k) head + i - k else head + i

  private def compare(row: UnsafeRow, arrival: Long, i: Int): Int = {
    val s = slot(i)
    val c = ordering.compare(row, rows(s))
    if (c != 0) c else java.lang.Long.compare(arrival, arrivals(s))
  }

  def offer(row: UnsafeRow, arrival: Long): Unit = if (k > 0) {
    if (size < k) insert(row.copy(), arrival)
    else if (reverse) {
      if (compare(row, arrival, size - 1) > 0) {
        // After the last: it takes the first's place, which becomes the last.
        rows(head).copyFrom(row)
        arrivals(head) = arrival
        head = slot(1)
      } else if (compare(row, arrival, 0) > 0) {
        val reused = rows(head)
        head = slot(1)
        size -= 1
        reused.copyFrom(row)
        insert(reused, arrival)
      }
    } else if (compare(row, arrival, size - 1) < 0) {
      if (compare(row, arrival, 0) < 0) {
        // Before the first: it takes the last's place, which becomes the first.
        head = slot(k - 1)
        rows(head).copyFrom(row)
        arrivals(head) = arrival
      } else {
        val reused = rows(slot(size - 1))
        size -= 1
        reused.copyFrom(row)
        insert(reused, arrival)
      }
    }
  }

  /** Puts `row` (owned here) where it belongs among fewer than `k` kept rows. */
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
    }
    if (at < size - at) {
      head = slot(k - 1) // the rows before `at` move one slot back
      var i = 0
      while (i < at) { move(i + 1, i); i += 1 }
    } else {
      var i = size
      while (i > at) { move(i - 1, i); i -= 1 }
    }
    rows(slot(at)) = row
    arrivals(slot(at)) = arrival
    size += 1
  }

  private def move(from: Int, to: Int): Unit = {
    rows(slot(to)) = rows(slot(from))
    arrivals(slot(to)) = arrivals(slot(from))
  }

  /** The kept rows, first to last. */
  def sorted: Array[UnsafeRow] = Array.tabulate(size)(i => rows(slot(i)))
}
