package fastwindow.exec.grouplimit

import java.util.Comparator

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

import fastwindow.frames.RankLimit

/**
 * Each group's rows that a rank-like limit of `limit` rows keeps, in one arena, with no object per
 * group: up to `capacity` rows per group (the limit, or twice it where ties are kept), best first.
 * With 10^5 groups and more, a row object, its byte array and a [[fastwindow.frames.GroupTopK]]
 * per group cost more than the shuffle of the rows they would drop (allocating them, and the
 * collector moving them as they live until the task's end).
 *
 * A group whose kept rows, ties included, would outgrow its capacity is not changed: `offer` says
 * [[TopRowsPerGroup.Overflow]], and the caller moves the group to an object (`release`).
 *
 * A row that evicts one of its group's rows takes that row's space where it fits, else is appended
 * (the old space abandoned). When the arena is full, the live rows move into a new one, at most
 * half full after the move, so moves cost O(1) per byte appended. Group ids are 0, 1, 2, ...: an
 * offer to id `count` adds a group.
 */
final class TopRowsPerGroup(order: Comparator[UnsafeRow], limit: Int, rank: RankLimit) {
  import TopRowsPerGroup._

  /** Rows a group holds at most: ties kept by rank and dense_rank may exceed the limit. */
  private val capacity = if (rank.keepsTies) 2 * limit else limit

  private var arena = new Array[Byte](InitialBytes)

  /** Bytes of the arena in use, abandoned spaces included, and the bytes of the rows held. */
  private var end = 0
  private var live = 0L

  /** By slot (`group * capacity + place`, place 0 the best): where its row starts, size, space. */
  private var offsets = new Array[Int](16 * capacity)
  private var sizes = new Array[Int](16 * capacity)
  private var spaces = new Array[Int](16 * capacity)

  /** By group: the rows it holds, or [[Released]]; whether they reach the limit (a bound). */
  private var counts = new Array[Int](16)
  private var bounded = new Array[Boolean](16)
  private var groups = 0

  /** Rows `row` and `other` return, pointed at the arena (field counts set by the first row). */
  private var view: UnsafeRow = _
  private var otherView: UnsafeRow = _

  def count: Int = groups

  /** Bytes held: the arena and the arrays by slot and group. */
  def bytes: Long = arena.length + 12L * offsets.length + 5L * counts.length

  /** The rows group `id` holds, or [[TopRowsPerGroup.Released]]. */
  def rowsOf(id: Int): Int = counts(id)

  /** Row `place` (0: the best) of group `id`; valid until the next call of `row` or `offer`. */
  def row(id: Int, place: Int): UnsafeRow = pointTo(view, id * capacity + place)

  /**
   * The last row group `id` keeps once its rows reach the limit (`limit` rows, or values for
   * dense_rank): no row after it is kept. Else null.
   */
  def bound(id: Int): UnsafeRow = if (bounded(id)) row(id, counts(id) - 1) else null

  /** Whether `row` may be kept by group `id`: before its bound, or tied with it if ties count. */
  def admits(id: Int, row: UnsafeRow): Boolean = !bounded(id) || {
    val c = order.compare(row, this.row(id, counts(id) - 1))
    c < 0 || c == 0 && rank.keepsTies
  }

  /**
   * Offers `row` (copied) to group `id`, or to a new group when id is `count`: [[Held]] (in
   * place, after the rows it ties with, evicting the rows the limit no longer keeps), [[Refused]]
   * (the limit does not keep it) or [[Overflow]] (the rows kept would outgrow the group's
   * capacity; nothing changed).
   */
  def offer(id: Int, row: UnsafeRow): Int = {
    if (view == null) {
      view = new UnsafeRow(row.numFields)
      otherView = new UnsafeRow(row.numFields)
    }
    if (id == groups) addGroup()
    val held = counts(id)
    var place = 0
    while (place < held && order.compare(row, this.row(id, place)) >= 0) place += 1
    val kept = keptWith(id, row, place)
    if (place >= kept) return Refused
    if (kept > capacity) return Overflow
    // The group's rows are those before `place`, the row, then rows place .. kept - 2.
    val base = id * capacity
    val size = row.getSizeInBytes
    var reused = -1
    var evicted = kept - 1
    while (evicted < held) {
      live -= sizes(base + evicted)
      if (reused < 0 && size <= spaces(base + evicted)) reused = base + evicted
      evicted += 1
    }
    val (at, space) = if (reused >= 0) (offsets(reused), spaces(reused)) else (0, 0)
    val slot = base + place
    val moved = math.min(held, kept - 1) - place
    System.arraycopy(offsets, slot, offsets, slot + 1, moved)
    System.arraycopy(sizes, slot, sizes, slot + 1, moved)
    System.arraycopy(spaces, slot, spaces, slot + 1, moved)
    counts(id) = kept
    if (reused >= 0) {
      offsets(slot) = at
      spaces(slot) = space
    } else {
      offsets(slot) = 0 // an empty row, not moved with the live rows below
      sizes(slot) = 0
      if (end + size > arena.length) moveLiveRows(newArenaBytes(size))
      offsets(slot) = end
      spaces(slot) = size
      end += size
    }
    Platform.copyMemory(row.getBaseObject, row.getBaseOffset, arena,
      Platform.BYTE_ARRAY_OFFSET + offsets(slot), size)
    sizes(slot) = size
    live += size
    Held
  }

  /**
   * How many of group `id`'s rows with `row` at `place` the limit keeps (best first), as
   * [[fastwindow.frames.RankLimit.kept]] counts over sorted rows; where those rows keep `row` and
   * fit, records in `bounded` whether they reach the limit.
   */
  private def keptWith(id: Int, row: UnsafeRow, place: Int): Int = {
    val n = counts(id) + 1
    def at(i: Int, into: UnsafeRow): UnsafeRow =
      if (i == place) row else pointTo(into, id * capacity + (if (i < place) i else i - 1))
    def tied(i: Int, j: Int): Boolean = order.compare(at(i, view), at(j, otherView)) == 0
    val (kept, reaches) = rank match {
      case RankLimit.RowNumber => (math.min(n, limit), n >= limit)
      case RankLimit.Rank =>
        var end = math.min(n, limit)
        while (end < n && tied(end, limit - 1)) end += 1
        (end, n >= limit)
      case RankLimit.DenseRank =>
        var (values, end) = (1, 1)
        while (end < n && (values < limit || tied(end, end - 1))) {
          if (!tied(end, end - 1)) values += 1
          end += 1
        }
        (end, values >= limit)
    }
    bounded(id) = reaches && place < kept && kept <= capacity || bounded(id)
    kept
  }

  /**
   * What `bytes` will be once `row` is held by group `id` (or a new group, id `count`), at most
   * (the rows it evicts may leave no space it fits); Long.MaxValue where no arena can hold it.
   */
  def bytesAfterOffer(id: Int, row: UnsafeRow): Long = {
    val size = row.getSizeInBytes
    val groupSlots = if (id == counts.length) 2L * id else counts.length.toLong
    val arrays = groupSlots * (12L * capacity + 5L)
    val last = id * capacity + limit - 1
    val full = id < groups && counts(id) == limit && !rank.keepsTies
    if (full && size <= spaces(last) || end + size <= arena.length) arena.length + arrays
    else {
      val wanted = math.max(arena.length.toLong, 2 * (live + size - (if (full) sizes(last) else 0)))
      if (wanted > MaxArenaBytes) Long.MaxValue else wanted + arrays
    }
  }

  /** Forgets group `id`'s rows (its caller keeps them elsewhere from now on). */
  def release(id: Int): Unit = {
    var place = 0
    while (place < counts(id)) { live -= sizes(id * capacity + place); place += 1 }
    counts(id) = Released
    bounded(id) = false
  }

  /** Forgets every group; the arena shrinks back. */
  def clear(): Unit = {
    arena = new Array[Byte](InitialBytes)
    end = 0
    live = 0
    groups = 0
  }

  private def addGroup(): Unit = {
    if (groups == counts.length) {
      counts = java.util.Arrays.copyOf(counts, 2 * groups)
      bounded = java.util.Arrays.copyOf(bounded, 2 * groups)
      offsets = java.util.Arrays.copyOf(offsets, 2 * groups * capacity)
      sizes = java.util.Arrays.copyOf(sizes, 2 * groups * capacity)
      spaces = java.util.Arrays.copyOf(spaces, 2 * groups * capacity)
    }
    counts(groups) = 0
    bounded(groups) = false
    groups += 1
  }

  /** The arena's size after a move that makes room for `size` more bytes. */
  private def newArenaBytes(size: Int): Int = {
    val wanted = math.max(arena.length.toLong, 2 * (live + size))
    if (wanted <= MaxArenaBytes) wanted.toInt
    else if (live + size <= MaxArenaBytes) MaxArenaBytes.toInt
    else throw new IllegalStateException(
      s"the kept rows of $groups groups need more than $MaxArenaBytes bytes")
  }

  private def pointTo(row: UnsafeRow, slot: Int): UnsafeRow = {
    row.pointTo(arena, Platform.BYTE_ARRAY_OFFSET + offsets(slot), sizes(slot))
    row
  }

  /** Copies the live rows, by slot, to the start of a new arena of `length` bytes. */
  private def moveLiveRows(length: Int): Unit = {
    val moved = new Array[Byte](length)
    var at = 0
    var g = 0
    while (g < groups) {
      var slot = g * capacity
      val stop = slot + math.max(counts(g), 0)
      while (slot < stop) {
        System.arraycopy(arena, offsets(slot), moved, at, sizes(slot))
        offsets(slot) = at
        spaces(slot) = sizes(slot)
        at += sizes(slot)
        slot += 1
      }
      g += 1
    }
    arena = moved
    end = at
  }
}

object TopRowsPerGroup {

  /** What `offer` did with a row. */
  val Held = 0
  val Refused = 1
  val Overflow = 2

  /** A group's count once its rows went elsewhere. */
  val Released: Int = -1

  /** The largest limit held this way: slots are reserved per group, up to twice the limit. */
  val MaxLimit = 8

  private val InitialBytes = 1 << 16

  /** The largest byte array the JVM allocates, rounded down to whole words. */
  private val MaxArenaBytes = (Int.MaxValue - 15L) & ~7L
}
