package fastwindow.frames

import java.util.Comparator

/**
 * Which rows of a group a rank-like limit keeps: those whose row_number, rank or dense_rank in the
 * group's order is at most the limit. Rank and dense_rank keep every row tied with a kept one, as
 * their values are equal for peers.
 */
sealed trait RankLimit {

  /** How many rows of `sorted(0 until n)` (in the group's order) the limit keeps. */
  def kept[T](sorted: Array[T], n: Int, limit: Int, order: Comparator[T]): Int

  /** Whether a row equal (in the order) to the last kept row may still be kept. */
  def keepsTies: Boolean
}

object RankLimit {
  case object RowNumber extends RankLimit {
    override def kept[T](sorted: Array[T], n: Int, limit: Int, order: Comparator[T]): Int =
      math.min(n, limit)
    override def keepsTies: Boolean = false
  }

  case object Rank extends RankLimit {
    // The first `limit` rows, and the rows tied with the last of them (their rank is its rank).
    override def kept[T](sorted: Array[T], n: Int, limit: Int, order: Comparator[T]): Int = {
      if (n <= limit) return n
      var end = limit
      while (end < n && order.compare(sorted(end), sorted(limit - 1)) == 0) end += 1
      end
    }
    override def keepsTies: Boolean = true
  }

  case object DenseRank extends RankLimit {
    // The rows of the first `limit` distinct values.
    override def kept[T](sorted: Array[T], n: Int, limit: Int, order: Comparator[T]): Int = {
      var distinct = if (n > 0) 1 else 0
      var end = math.min(n, 1)
      while (end < n && (distinct < limit || order.compare(sorted(end), sorted(end - 1)) == 0)) {
        if (order.compare(sorted(end), sorted(end - 1)) != 0) distinct += 1
        end += 1
      }
      end
    }
    override def keepsTies: Boolean = true
  }
}
