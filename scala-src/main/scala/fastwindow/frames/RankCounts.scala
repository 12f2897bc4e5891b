package fastwindow.frames

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
