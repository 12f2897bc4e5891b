package fastwindow.frames

import java.util.Comparator

/**
 * The rows of one group that a rank-like limit may keep, found without sorting the group: rows
 * are appended unsorted; once the buffer holds `limit` rows (the first time), then twice what was
 * kept last time (at least twice the limit), it is sorted and cut to what the limit keeps. After a cut that reached the limit, the
 * last kept row is a bound: a row after it in the order (or equal to it, for row_number) can never
 * be kept, so it is refused with one comparison. O(n log k) for n rows and a limit k, where
 * sorting the group takes O(n log n); ties of rank and dense_rank can make the kept set, and the
 * work, larger, as they make Spark's.
 *
 * `rows` holds at most `limit` rows more than twice the kept set, so memory follows the survivors;
 * `bytes` is the sum of `weigh` over the rows retained, for the caller's memory accounting.
 */
final class GroupTopK[T <: AnyRef](
    rank: RankLimit, limit: Int, order: Comparator[T], weigh: T => Long, copy: (T, T) => T) {
  private var rows: Array[AnyRef] = new Array[AnyRef](math.min(limit, 16) + 1)
  private var size = 0

  /** The last kept row of a cut that kept the limit's worth, else null. */
  private var bound: T = _

  /** The first cut comes as soon as `limit` rows are held, to set the bound early. */
  private var cutAt = limit
  private var heldBytes = 0L
  private var dropped = GroupTopK.NoRows
  private var spares = 0

  def bytes: Long = heldBytes

  /** The last kept row of the last cut that reached the limit (null before one did). */
  def boundRow: T = bound

  /** Whether `row` could be kept; a caller only copies and `add`s a row that could be. */
  def admits(row: T): Boolean = bound == null || {
    val c = order.compare(row, bound)
    c < 0 || (c == 0 && rank.keepsTies)
  }

  /** Adds a copy of a row `admits` accepted, made by `copy` into a dropped row when there is one. */
  def add(row: T): Unit = {
    if (size == rows.length) rows = java.util.Arrays.copyOf(rows, size * 2)
    val spare = if (spares > 0) { spares -= 1; dropped(spares).asInstanceOf[T] }
    else null.asInstanceOf[T]
    if (spare != null) heldBytes -= weigh(spare)
    rows(size) = copy(row, spare)
    heldBytes += weigh(rows(size).asInstanceOf[T])
    size += 1
    if (size >= cutAt) cut()
  }

  def count: Int = size

  /** The kept rows, sorted in the group's order (the group is done). */
  def result(): Iterator[T] = {
    cut()
    held
  }

  /** The rows `bytes` weighs: those held and the dropped ones kept for their buffers. */
  def retained: Iterator[T] = held ++ dropped.iterator.take(spares).asInstanceOf[Iterator[T]]

  /** Every row held, unsorted (for a caller that gives the group to a sorter). */
  def held: Iterator[T] = rows.iterator.take(size).asInstanceOf[Iterator[T]]

  private def cut(): Unit = {
    val sorted = rows.asInstanceOf[Array[T]]
    java.util.Arrays.sort(sorted, 0, size, order)
    val kept = rank.kept(sorted, size, limit, order)
    // Up to `limit` (at most 16) dropped rows are kept, and weighed, for their buffers: the next
    // rows are copied into them instead of new ones.
    var i = kept
    while (i < size) {
      if (spares < math.min(limit, SpareRows)) {
        if (spares == dropped.length) dropped = java.util.Arrays.copyOf(dropped, spares * 2 + 1)
        dropped(spares) = sorted(i)
        spares += 1
      } else {
        heldBytes -= weigh(sorted(i))
      }
      i += 1
    }
    java.util.Arrays.fill(rows, kept, size, null)
    // The bound is set only once the limit is reached: before, any row may still be kept.
    if (reachesLimit(sorted, kept)) bound = sorted(kept - 1)
    size = kept
    cutAt = math.max(2 * limit, 2 * kept)
  }

  private val SpareRows = 16

  private def reachesLimit(sorted: Array[T], kept: Int): Boolean = rank match {
    case RankLimit.RowNumber | RankLimit.Rank => kept >= limit
    case RankLimit.DenseRank =>
      var distinct = if (kept > 0) 1 else 0
      var i = 1
      while (i < kept) { if (order.compare(sorted(i), sorted(i - 1)) != 0) distinct += 1; i += 1 }
      distinct >= limit
  }
}

private object GroupTopK {

  /** Shared by every group until it drops a row (a group often never does). */
  val NoRows = new Array[AnyRef](0)
}
