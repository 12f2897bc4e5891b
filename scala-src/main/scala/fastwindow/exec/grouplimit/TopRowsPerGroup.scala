package fastwindow.exec.grouplimit

import java.util.Comparator

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

import fastwindow.frames.RankLimit
import fastwindow.exec.shared.IntegralOrderKey

/**
 * Each group's rows that a rank-like limit of `limit` rows keeps, in one arena, with no object per
 * group: up to `capacity` rows per group (the limit, or twice it where ties are kept), best first.
 * With 10^5 groups and more, a row object, its byte array and a [[fastwindow.frames.GroupTopK]]
 * per group cost more than the shuffle of the rows they would drop (allocating them, and the
 * collector moving them as they live until the task's end).
 *
 * A group's count, bound and slots (where each row starts, its size, its space) lie together in
 * one record, and with an integral ORDER BY (`orderKey`) each row's key lies in its slot, so an
 * offer compares with the group's rows without reading their bytes: over many groups each read of
 * another array or of a held row is a cache miss.
 *
 * A group whose kept rows, ties included, would outgrow its capacity is not changed: `offer` says
 * [[TopRowsPerGroup.Overflow]], and the caller moves the group to an object (`release`).
 *
 * A row that evicts one of its group's rows takes that row's space where it fits, else is appended
 * (the old space abandoned). When the arena is full, the live rows move into a new one, at most
 * half full after the move, so moves cost O(1) per byte appended. Group ids are 0, 1, 2, ...: an
 * offer to id `count` adds a group.
 */
final class TopRowsPerGroup(
    order: Comparator[UnsafeRow], limit: Int, rank: RankLimit,
    orderKey: Option[IntegralOrderKey] = None) {
  import TopRowsPerGroup._

  /** Rows a group holds at most: ties kept by rank and dense_rank may exceed the limit. */
  private val capacity = if (rank.keepsTies) 2 * limit else limit

  private val key = orderKey.orNull

  /** Ints of a place's slot: where its row starts, its size, its space (and its key's halves). */
  private val perPlace = if (key != null) 5 else 3

  /** Ints of a group's record: its count and flags, then per place its slot. */
  private val stride = Header + perPlace * capacity

  private var arena = new Array[Byte](InitialBytes)

  /** Bytes of the arena in use, abandoned spaces included, and the bytes of the rows held. */
  private var end = 0
  private var live = 0L

  /**
   * By group (`group * stride`): the rows it holds (or [[Released]]); its flags (bit 0: its rows
   * reach the limit, a bound; bit 1 + place: the key of the row in that place is null); then per
   * place (0: the best) where its row starts, its size and its space, and with `orderKey` the
   * high and low halves of its row's key.
   */
  private var records = new Array[Int](16 * stride)

  private var groups = 0

  /** The key of the row being offered or judged, with `orderKey`. */
  private var rowNull = false
  private var rowKey = 0L

  /** Rows `row` and `other` return, pointed at the arena (field counts set by the first row). */
  private var view: UnsafeRow = _
  private var otherView: UnsafeRow = _

  def count: Int = groups

  /** Bytes held: the arena and the groups' records. */
  def bytes: Long = arena.length + 4L * records.length

  /** The rows group `id` holds, or [[TopRowsPerGroup.Released]]. */
  def rowsOf(id: Int): Int = records(id * stride)

  /** Row `place` (0: the best) of group `id`; valid until the next call of `row` or `offer`. */
  def row(id: Int, place: Int): UnsafeRow = pointTo(view, id, place)

  /**
   * The last row group `id` keeps once its rows reach the limit (`limit` rows, or values for
   * dense_rank): no row after it is kept. Else null.
   */
  def bound(id: Int): UnsafeRow = if (isBounded(id)) row(id, rowsOf(id) - 1) else null

  /** Whether `row` may be kept by group `id`: before its bound, or tied with it if ties count. */
  def admits(id: Int, row: UnsafeRow): Boolean = !isBounded(id) || {
    judge(row)
    val c = compareRow(row, id, rowsOf(id) - 1)
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
    judge(row)
    val held = rowsOf(id)
    var place = 0
    while (place < held && compareRow(row, id, place) >= 0) place += 1
    val kept = keptWith(id, row, place)
    if (place >= kept) return Refused
    if (kept > capacity) return Overflow
    // The group's rows are those before `place`, the row, then rows place .. kept - 2.
    val size = row.getSizeInBytes
    var reused = -1
    var evicted = kept - 1
    while (evicted < held) {
      live -= sizeOf(id, evicted)
      if (reused < 0 && size <= spaceOf(id, evicted)) reused = slotOf(id, evicted)
      evicted += 1
    }
    val (at, space) = if (reused >= 0) (records(reused), records(reused + Space)) else (0, 0)
    val slot = slotOf(id, place)
    val moved = math.min(held, kept - 1) - place
    System.arraycopy(records, slot, records, slot + perPlace, perPlace * moved)
    if (key != null) {
      records(slot + KeyHigh) = (rowKey >>> 32).toInt
      records(slot + KeyLow) = rowKey.toInt
      // The null flags of the places from `place` on move one place later, as their slots did.
      val flags = records(id * stride + Flags)
      val before = (2 << place) - 1 // the bound and the places before `place`
      records(id * stride + Flags) =
        (flags & before) | (flags & ~before) << 1 | (if (rowNull) 2 << place else 0)
    }
    records(id * stride) = kept
    if (reused >= 0) {
      records(slot) = at
      records(slot + Space) = space
    } else {
      records(slot) = 0 // an empty row, not moved with the live rows below
      records(slot + Size) = 0
      if (end + size > arena.length) moveLiveRows(newArenaBytes(size))
      records(slot) = end
      records(slot + Space) = size
      end += size
    }
    Platform.copyMemory(row.getBaseObject, row.getBaseOffset, arena,
      Platform.BYTE_ARRAY_OFFSET + records(slot), size)
    records(slot + Size) = size
    live += size
    Held
  }

  /**
   * How many of group `id`'s rows with `row` at `place` the limit keeps (best first), as
   * [[fastwindow.frames.RankLimit.kept]] counts over sorted rows; where those rows keep `row` and
   * fit, records whether they reach the limit.
   */
  private def keptWith(id: Int, row: UnsafeRow, place: Int): Int = {
    val n = rowsOf(id) + 1
    def tied(i: Int, j: Int): Boolean = compareAt(id, row, place, i, j) == 0
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
    if (reaches && place < kept && kept <= capacity) records(id * stride + Flags) |= BoundFlag
    kept
  }

  /** Reads the key of `row`, about to be compared with held rows. */
  private def judge(row: UnsafeRow): Unit = if (key != null) {
    rowNull = key.isNull(row)
    rowKey = if (rowNull) 0L else key.value(row)
  }

  /** `row` (judged) against group `id`'s row at `place`: negative where `row` comes first. */
  private def compareRow(row: UnsafeRow, id: Int, place: Int): Int =
    if (key == null) order.compare(row, pointTo(view, id, place))
    else key.compare(rowNull, rowKey, keyIsNull(id, place), keyOf(id, place))

  /**
   * Rows `i` and `j` of group `id`'s rows with `row` (judged) at `place` (the rows after it one
   * place later) compared.
   */
  private def compareAt(id: Int, row: UnsafeRow, place: Int, i: Int, j: Int): Int = {
    def held(k: Int) = if (k < place) k else k - 1
    if (key == null) {
      def at(k: Int, into: UnsafeRow) = if (k == place) row else pointTo(into, id, held(k))
      order.compare(at(i, view), at(j, otherView))
    } else {
      def isNull(k: Int) = if (k == place) rowNull else keyIsNull(id, held(k))
      def value(k: Int) = if (k == place) rowKey else keyOf(id, held(k))
      key.compare(isNull(i), value(i), isNull(j), value(j))
    }
  }

  /**
   * What `bytes` will be once `row` is held by group `id` (or a new group, id `count`), at most
   * (the rows it evicts may leave no space it fits); Long.MaxValue where no arena can hold it.
   */
  def bytesAfterOffer(id: Int, row: UnsafeRow): Long = {
    val size = row.getSizeInBytes
    val slotsNow = records.length / stride
    val groupSlots = if (id == groups && id >= slotsNow) 2L * id else slotsNow.toLong
    val arrays = groupSlots * 4L * stride
    val full = id < groups && rowsOf(id) == limit && !rank.keepsTies
    if (full && size <= spaceOf(id, limit - 1) || end + size <= arena.length) {
      arena.length + arrays
    } else {
      val wanted =
        math.max(arena.length.toLong, 2 * (live + size - (if (full) sizeOf(id, limit - 1) else 0)))
      if (wanted > MaxArenaBytes) Long.MaxValue else wanted + arrays
    }
  }

  /** Forgets group `id`'s rows (its caller keeps them elsewhere from now on). */
  def release(id: Int): Unit = {
    var place = 0
    while (place < rowsOf(id)) { live -= sizeOf(id, place); place += 1 }
    records(id * stride) = Released
    records(id * stride + Flags) = 0
  }

  /** Forgets every group; the arena shrinks back. */
  def clear(): Unit = {
    arena = new Array[Byte](InitialBytes)
    end = 0
    live = 0
    groups = 0
  }

  private def isBounded(id: Int): Boolean = (records(id * stride + Flags) & BoundFlag) != 0
  private def slotOf(id: Int, place: Int): Int = id * stride + Header + perPlace * place
  private def sizeOf(id: Int, place: Int): Int = records(slotOf(id, place) + Size)
  private def spaceOf(id: Int, place: Int): Int = records(slotOf(id, place) + Space)
  private def keyOf(id: Int, place: Int): Long = {
    val slot = slotOf(id, place)
    records(slot + KeyHigh).toLong << 32 | (records(slot + KeyLow) & 0xffffffffL)
  }
  private def keyIsNull(id: Int, place: Int): Boolean =
    (records(id * stride + Flags) & (2 << place)) != 0

  private def addGroup(): Unit = {
    if ((groups + 1) * stride > records.length) {
      records = java.util.Arrays.copyOf(records, 2 * groups * stride)
    }
    records(groups * stride) = 0
    records(groups * stride + Flags) = 0
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

  private def pointTo(row: UnsafeRow, id: Int, place: Int): UnsafeRow = {
    val slot = slotOf(id, place)
    row.pointTo(arena, Platform.BYTE_ARRAY_OFFSET + records(slot), records(slot + Size))
    row
  }

  /** Copies the live rows, group by group, to the start of a new arena of `length` bytes. */
  private def moveLiveRows(length: Int): Unit = {
    val moved = new Array[Byte](length)
    var at = 0
    var g = 0
    while (g < groups) {
      var place = 0
      while (place < rowsOf(g)) {
        val slot = slotOf(g, place)
        System.arraycopy(arena, records(slot), moved, at, records(slot + Size))
        records(slot) = at
        records(slot + Space) = records(slot + Size)
        at += records(slot + Size)
        place += 1
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

  /** A record's ints: the count, the flags; then per place the slot's. */
  private val Header = 2
  private val Flags = 1
  private val BoundFlag = 1
  private val Size = 1
  private val Space = 2
  private val KeyHigh = 3
  private val KeyLow = 4

  private val InitialBytes = 1 << 16

  /** The largest byte array the JVM allocates, rounded down to whole words. */
  private val MaxArenaBytes = (Int.MaxValue - 15L) & ~7L
}
