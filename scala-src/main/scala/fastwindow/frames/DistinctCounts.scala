package fastwindow.frames

/**
 * A multiset of value ids `0 until m` that knows how many distinct ids it holds: adding or
 * removing one occurrence is O(1). A frame's rows are added as it grows and removed as it
 * shrinks, so over a partition whose frame edges only move forward every frame's count of
 * distinct values costs O(n) in all, whatever the frame's width (Spark builds a set of each
 * frame's values, O(w) per row).
 */
final class DistinctCounts {
  private var counts = new Array[Int](16)
  /** Ids whose count is above zero. */
  var distinct = 0

  /** Empties the multiset, for ids `0 until m`. */
  def reset(m: Int): Unit = {
    if (counts.length < m) counts = new Array[Int](math.max(m, counts.length * 2))
    else java.util.Arrays.fill(counts, 0, m, 0)
    distinct = 0
  }

  def add(id: Int): Unit = {
    if (counts(id) == 0) distinct += 1
    counts(id) += 1
  }

  def remove(id: Int): Unit = {
    counts(id) -= 1
    if (counts(id) == 0) distinct -= 1
  }

  def bytes: Long = 4L * counts.length
}

object DistinctCounts {
  val BytesPerId: Long = 4L
}
