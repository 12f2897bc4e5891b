package fastwindow.frames

/**
 * Sorts a slice of row numbers by an order between rows, stably: rows that compare equal keep
 * their order. Stability is what makes a sort of each window partition alone give Spark's rows in
 * Spark's order: Spark's in-memory sort (TimSort, or radix sort) is stable too, so ORDER BY ties
 * come out in input order in both. Insertion sort for short slices, merge sort otherwise.
 */
object StableIndexSort {

  /** An order of row numbers (negative: `a` first; 0: tie). */
  trait RowOrder {
    def compare(a: Int, b: Int): Int
  }

  private val InsertionMax = 16

  /**
   * Sorts `rows(from until until)` by `order`, using `spare` (at least as long as `rows`) as
   * scratch space.
   */
  def sort(rows: Array[Int], from: Int, until: Int, spare: Array[Int], order: RowOrder): Unit =
    if (until - from <= InsertionMax) insertionSort(rows, from, until, order)
    else {
      val mid = (from + until) >>> 1
      sort(rows, from, mid, spare, order)
      sort(rows, mid, until, spare, order)
      // Already in order (a presorted input, common for time-ordered data): nothing to merge.
      if (order.compare(rows(mid - 1), rows(mid)) > 0) merge(rows, from, mid, until, spare, order)
    }

  private def insertionSort(rows: Array[Int], from: Int, until: Int, order: RowOrder): Unit = {
    var i = from + 1
    while (i < until) {
      val row = rows(i)
      var j = i - 1
      while (j >= from && order.compare(rows(j), row) > 0) {
        rows(j + 1) = rows(j)
        j -= 1
      }
      rows(j + 1) = row
      i += 1
    }
  }

  /** Merges the sorted halves; on a tie the left (earlier) half's row goes first. */
  private def merge(rows: Array[Int], from: Int, mid: Int, until: Int, spare: Array[Int],
      order: RowOrder): Unit = {
    System.arraycopy(rows, from, spare, from, mid - from)
    var (left, right, out) = (from, mid, from)
    while (left < mid && right < until) {
      if (order.compare(rows(right), spare(left)) < 0) {
        rows(out) = rows(right)
        right += 1
      } else {
        rows(out) = spare(left)
        left += 1
      }
      out += 1
    }
    System.arraycopy(spare, left, rows, out, mid - left)
  }
}
