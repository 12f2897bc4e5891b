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

  /** Adds one occurrence of `id`; whether it was absent. */
  def add(id: Int): Boolean = {
    counts(id) += 1
    val entered = counts(id) == 1
    if (entered) distinct += 1
    entered
  }

  /** Removes one occurrence of `id`; whether it is now absent. */
  def remove(id: Int): Boolean = {
    counts(id) -= 1
    val left = counts(id) == 0
    if (left) distinct -= 1
    left
  }

  def bytes: Long = 4L * counts.length
}

object DistinctCounts {
  val BytesPerId: Long = 4L
}
