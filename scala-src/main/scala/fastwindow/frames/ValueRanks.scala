package fastwindow.frames

/**
 * The ranks of a buffered partition's values: each row's value replaced by the position of its
 * value among the partition's distinct values, in order (nulls have none). Values are given as
 * `Long` sort keys whose signed order is the value order (see [[ValueRanks.doubleKey]]) and as
 * the double a result is made of. O(n) per partition: one radix sort of the keys carrying their
 * row numbers ([[KeyedRadixSort]]), then one pass that numbers the distinct keys.
 */
final class ValueRanks {
  private var keys = new Array[Long](16)
  private var doubles = new Array[Double](16)
  private var ranks = new Array[Int](16)
  private var rows = new Array[Int](16)
  private var spareKeys = new Array[Long](16)
  private var spareRows = new Array[Int](16)
  private var values = new Array[Double](16)
  private var n = 0

  /** Distinct non-null values of the partition. */
  var distinct = 0

  /** Starts a partition of `rowCount` rows; each is then `set` or left null. */
  def start(rowCount: Int): Unit = {
    if (keys.length < rowCount) {
      val size = math.max(rowCount, keys.length * 2)
      keys = new Array[Long](size)
      doubles = new Array[Double](size)
      ranks = new Array[Int](size)
      rows = new Array[Int](size)
      spareKeys = new Array[Long](size)
      spareRows = new Array[Int](size)
      values = new Array[Double](size)
    }
    java.util.Arrays.fill(ranks, 0, rowCount, -1)
    n = rowCount
  }

  def set(row: Int, key: Long, value: Double): Unit = {
    keys(row) = key
    doubles(row) = value
    ranks(row) = 0
  }

  /** Ranks the values set since `start`. */
  def rank(): Unit = {
    // The non-null rows' keys, moved to the front (m <= r: in place).
    var m = 0
    var r = 0
    while (r < n) {
      if (ranks(r) >= 0) { keys(m) = keys(r); rows(m) = r; m += 1 }
      r += 1
    }
    val inSpare = KeyedRadixSort.sort(keys, rows, spareKeys, spareRows, m)
    val sortedKeys = if (inSpare) spareKeys else keys
    val sortedRows = if (inSpare) spareRows else rows
    distinct = 0
    var k = 0
    while (k < m) {
      if (k == 0 || sortedKeys(k - 1) != sortedKeys(k)) {
        values(distinct) = doubles(sortedRows(k))
        distinct += 1
      }
      ranks(sortedRows(k)) = distinct - 1
      k += 1
    }
  }

  /** Row r's rank, -1 when its value is null. */
  def rankOf(row: Int): Int = ranks(row)

  /** The value of rank `rank`, as a double. */
  def value(rank: Int): Double = values(rank)

  def bytes: Long = ValueRanks.BytesPerValue * keys.length
}

object ValueRanks {

  /** Bytes per row of a partition: keys, doubles, values and a spare key; rank, row, spare row. */
  private val BytesPerValue: Long = 4 * 8L + 3 * 4L

  /** Bytes per buffered row (see [[ValueRanks.bytes]]), plus the counts over its ranks. */
  val BytesPerRow: Long = BytesPerValue + RankCounts.BytesPerRank

  /**
   * A sort key for a double in Spark's order: -0.0 equals 0.0, every NaN equals every NaN and
   * sorts above positive infinity. Signed order of the keys is the order of the doubles.
   */
  def doubleKey(d: Double): Long =
    if (d.isNaN) Long.MaxValue
    else {
      val bits = java.lang.Double.doubleToRawLongBits(if (d == 0.0) 0.0 else d)
      bits ^ ((bits >> 63) & Long.MaxValue)
    }
}
