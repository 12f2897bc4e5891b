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

/**
 * A multiset of ranks `0 until m`: adding or removing a rank and finding the rank of the k-th
 * smallest element. A frame's rows are added as it grows and removed as it shrinks, so over a
 * partition of n rows whose frame edges only move forward every order statistic of every frame
 * costs O(n log n) in all, whatever the frame's width (a sorted copy of each frame, as Spark
 * takes, costs O(w log w) per row).
 *
 * Up to [[RankCounts.SortedCapacity]] elements are kept as a sorted array (k-th element: a read;
 * adding: a binary search and a short copy, all in cache, whatever the partition's size), for
 * the narrow moving frames of rolling medians; from the first time more are held, as counts in a
 * Fenwick tree over the ranks (O(log m) each), until the next `reset`.
 */
final class RankCounts {
  private var tree = new Array[Long](17)
  private var size = 0
  private var topBit = 0
  private val sorted = new Array[Int](RankCounts.SortedCapacity)
  private var inTree = false

  /** Elements in the multiset (the sum of the counts). */
  var total = 0L

  /** Empties the multiset, for ranks `0 until m`. */
  def reset(m: Int): Unit = {
    size = m
    topBit = Integer.highestOneBit(math.max(m, 1))
    total = 0L
    inTree = false
  }

  /** Adds `count` (negative: removes) elements of rank `rank`. */
  def add(rank: Int, count: Long): Unit = {
    if (!inTree && total + count > RankCounts.SortedCapacity) moveToTree()
    if (inTree) addToTree(rank, count)
    else if (count > 0) insertSorted(rank, count.toInt)
    else removeSorted(rank, (-count).toInt)
    total += count
  }

  /** The rank of the k-th (0-based) smallest element; `0 <= k < total`. */
  def kth(k: Long): Int = if (inTree) kthInTree(k) else sorted(k.toInt)

  def bytes: Long = RankCounts.BytesPerRank * tree.length + 4L * sorted.length

  private def insertSorted(rank: Int, copies: Int): Unit = {
    val n = total.toInt
    val at = lowerBound(rank, n)
    System.arraycopy(sorted, at, sorted, at + copies, n - at)
    java.util.Arrays.fill(sorted, at, at + copies, rank)
  }

  private def removeSorted(rank: Int, copies: Int): Unit = {
    val n = total.toInt
    val at = lowerBound(rank, n)
    System.arraycopy(sorted, at + copies, sorted, at, n - at - copies)
  }

  /** The first position of `sorted(0 until n)` holding `rank` or more. */
  private def lowerBound(rank: Int, n: Int): Int = {
    var lo = 0
    var hi = n
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (sorted(mid) < rank) lo = mid + 1 else hi = mid
    }
    lo
  }

  private def moveToTree(): Unit = {
    if (tree.length < size + 1) tree = new Array[Long](math.max(size + 1, tree.length * 2))
    else java.util.Arrays.fill(tree, 0, size + 1, 0L)
    var k = 0
    while (k < total) { addToTree(sorted(k), 1L); k += 1 }
    inTree = true
  }

  private def addToTree(rank: Int, count: Long): Unit = {
    var i = rank + 1
    while (i <= size) {
      tree(i) += count
      i += i & -i
    }
  }

  private def kthInTree(k: Long): Int = {
    var position = 0
    var remaining = k + 1
    var step = topBit
    while (step > 0) {
      val next = position + step
      if (next <= size && tree(next) < remaining) {
        position = next
        remaining -= tree(next)
      }
      step >>= 1
    }
    position
  }
}

object RankCounts {
  val BytesPerRank: Long = 8L

  /** Elements kept as a sorted array before the Fenwick tree takes over. */
  val SortedCapacity = 256
}
