package fastwindow.frames

/**
 * A multiset of value ranks `0 until m` (ranks in the values' order) that knows its most frequent
 * ranks: adding or removing one occurrence is O(log m), over a tree whose nodes hold the largest
 * count below them and how many ranks reach it. A frame's rows are added as it grows and removed
 * as it shrinks, so every frame's mode costs O(n log m) per partition in all, whatever the
 * frame's width (Spark counts each frame's values again, O(w) per row).
 */
final class ModeCounts {
  private var leaves = 1

  /** Per node: the largest count below it, and the number of ranks with that count. */
  private var top = new Array[Int](2)
  private var atTop = new Array[Int](2)

  /** Empties the multiset, for ranks `0 until m`. */
  def reset(m: Int): Unit = {
    leaves = Integer.highestOneBit(math.max(m, 1) * 2 - 1)
    if (top.length < 2 * leaves) {
      top = new Array[Int](2 * leaves)
      atTop = new Array[Int](2 * leaves)
    } else {
      java.util.Arrays.fill(top, 0, 2 * leaves, 0)
      java.util.Arrays.fill(atTop, 0, 2 * leaves, 0)
    }
    // Every leaf has count 0, reached by itself.
    java.util.Arrays.fill(atTop, leaves, 2 * leaves, 1)
    var node = leaves - 1
    while (node >= 1) {
      combine(node)
      node -= 1
    }
  }

  def add(rank: Int): Unit = change(rank, 1)
  def remove(rank: Int): Unit = change(rank, -1)

  private def change(rank: Int, by: Int): Unit = {
    var node = leaves + rank
    top(node) += by
    node >>= 1
    while (node >= 1) {
      combine(node)
      node >>= 1
    }
  }

  private def combine(node: Int): Unit = {
    val (l, r) = (2 * node, 2 * node + 1)
    if (top(l) > top(r)) {
      top(node) = top(l)
      atTop(node) = atTop(l)
    } else if (top(l) < top(r)) {
      top(node) = top(r)
      atTop(node) = atTop(r)
    } else {
      top(node) = top(l)
      atTop(node) = atTop(l) + atTop(r)
    }
  }

  /** Whether the multiset holds nothing. */
  def isEmpty: Boolean = top(1) == 0

  /** Whether more than one rank has the largest count. */
  def tied: Boolean = atTop(1) > 1

  /** The lowest (or, with `highest`, the highest) of the ranks with the largest count. */
  def mode(highest: Boolean): Int = {
    var node = 1
    while (node < leaves) {
      val (first, second) = if (highest) (2 * node + 1, 2 * node) else (2 * node, 2 * node + 1)
      node = if (top(first) == top(node)) first else second
    }
    node - leaves
  }

  def bytes: Long = 8L * top.length
}

object ModeCounts {

  /** Two ints per node, two nodes per rank. */
  val BytesPerRank: Long = 16L
}
