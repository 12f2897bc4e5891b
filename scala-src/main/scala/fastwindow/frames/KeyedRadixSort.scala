package fastwindow.frames

/**
 * Sorts `Long` keys by their signed order, carrying an `Int` payload (a row number) with each:
 * least-significant-digit radix sort, eight stable passes of one byte, each skipped when all keys
 * share that byte (small integers skip most). O(n) where a comparison sort takes O(n log n), and
 * the payload makes a binary search per row, to find where each row's key went, unnecessary.
 */
object KeyedRadixSort {
  private val Radix = 256

  /**
   * Sorts `keys(0 until n)` with `rows` alongside, using `spareKeys` and `spareRows` (at least n
   * long) as the other buffer of each pass. Returns whether the sorted result ended in the spare
   * arrays (else in `keys` and `rows`). `keys` are overwritten either way.
   */
  def sort(keys: Array[Long], rows: Array[Int], spareKeys: Array[Long], spareRows: Array[Int],
      n: Int): Boolean = {
    var from = keys
    var fromRows = rows
    var to = spareKeys
    var toRows = spareRows
    var inSpare = false
    // Flipping the sign bit makes the unsigned byte order the signed order.
    var i = 0
    while (i < n) { from(i) ^= Long.MinValue; i += 1 }
    val counts = new Array[Int](Radix + 1)
    var shift = 0
    while (shift < 64) {
      java.util.Arrays.fill(counts, 0)
      i = 0
      while (i < n) { counts(digit(from(i), shift) + 1) += 1; i += 1 }
      if (n > 0 && counts(digit(from(0), shift) + 1) != n) {
        var b = 0
        while (b < Radix) { counts(b + 1) += counts(b); b += 1 }
        i = 0
        while (i < n) {
          val d = digit(from(i), shift)
          val p = counts(d)
          counts(d) = p + 1
          to(p) = from(i)
          toRows(p) = fromRows(i)
          i += 1
        }
        val keysWere = from; from = to; to = keysWere
        val rowsWere = fromRows; fromRows = toRows; toRows = rowsWere
        inSpare = !inSpare
      }
      shift += 8
    }
    i = 0
    while (i < n) { from(i) ^= Long.MinValue; i += 1 }
    inSpare
  }

  private def digit(key: Long, shift: Int): Int = ((key >>> shift) & 0xff).toInt
}
