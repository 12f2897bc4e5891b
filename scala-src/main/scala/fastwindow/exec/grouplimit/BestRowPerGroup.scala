package fastwindow.exec.grouplimit

import java.util.Comparator

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

/**
 * `row_number() <= 1` per group ("latest row per key"): each group's one kept row, its bytes in
 * one arena by group id, with no object per group. With 10^5 groups and more, a row object, its
 * byte array and a [[fastwindow.frames.GroupTopK]] per group were a third of the top-k's time
 * (allocating them, and the collector moving them as they live until the task's end).
 *
 * A row that comes before its group's row overwrites it where it fits in that row's space, else
 * is appended (the old space is abandoned). When the arena is full, the live rows move into a new
 * one, at most half full after the move, so moves cost O(1) per byte appended. Group ids are
 * 0, 1, 2, ...: `put` of id `count` adds a group.
 */
final class BestRowPerGroup(order: Comparator[UnsafeRow]) {
  import BestRowPerGroup._

  private var arena = new Array[Byte](InitialBytes)

  /** Bytes of the arena in use, abandoned spaces included. */
  private var end = 0

  /** By group id: where its row starts, its size, and the bytes its space has. */
  private var offsets = new Array[Int](16)
  private var sizes = new Array[Int](16)
  private var spaces = new Array[Int](16)
  private var groups = 0

  /** The row `kept` returns, pointed at the arena (its field count is set by the first row). */
  private var view: UnsafeRow = _

  def count: Int = groups

  /** Bytes held: the arena and the arrays by group. */
  def bytes: Long = arena.length + 12L * offsets.length

  /** Group `id`'s row; valid until the next call of `kept` or `put`. */
  def kept(id: Int): UnsafeRow = {
    view.pointTo(arena, Platform.BYTE_ARRAY_OFFSET + offsets(id), sizes(id))
    view
  }

  /** Whether `row` comes before group `id`'s row (a tie keeps the row that came first). */
  def admits(id: Int, row: UnsafeRow): Boolean = order.compare(row, kept(id)) < 0

  /** What `bytes` will be once `put(id, row)` is done (Long.MaxValue: no arena can hold it). */
  def bytesAfterPut(id: Int, row: UnsafeRow): Long = {
    val size = row.getSizeInBytes
    val arrays = 12L * (if (id < offsets.length) offsets.length else 2 * offsets.length)
    if (id < groups && size <= spaces(id) || end + size <= arena.length) arena.length + arrays
    else newArenaBytes(id, size) + arrays
  }

  /** Makes `row` (copied) group `id`'s row: replacing it, or, for id == `count`, a new group. */
  def put(id: Int, row: UnsafeRow): Unit = {
    val size = row.getSizeInBytes
    if (view == null) view = new UnsafeRow(row.numFields)
    if (id == groups) {
      if (id == offsets.length) {
        offsets = java.util.Arrays.copyOf(offsets, 2 * id)
        sizes = java.util.Arrays.copyOf(sizes, 2 * id)
        spaces = java.util.Arrays.copyOf(spaces, 2 * id)
      }
      groups += 1
    } else if (size <= spaces(id)) {
      write(row, offsets(id), size)
      sizes(id) = size
      return
    }
    // A new group's row, or one that outgrew its space (abandoned): appended.
    offsets(id) = 0
    sizes(id) = 0
    if (end + size > arena.length) {
      val length = newArenaBytes(id, size)
      if (length > MaxArenaBytes) throw new IllegalStateException(
        s"the kept rows of $groups groups need more than $MaxArenaBytes bytes")
      moveLiveRows(length.toInt)
    }
    offsets(id) = end
    write(row, end, size)
    sizes(id) = size
    spaces(id) = size
    end += size
  }

  /** Forgets every group; the arena shrinks back. */
  def clear(): Unit = {
    arena = new Array[Byte](InitialBytes)
    end = 0
    groups = 0
  }

  private def write(row: UnsafeRow, at: Int, size: Int): Unit =
    Platform.copyMemory(row.getBaseObject, row.getBaseOffset, arena,
      Platform.BYTE_ARRAY_OFFSET + at, size)

  /** The arena's size after a move that makes room for `size` more bytes for group `id`. */
  private def newArenaBytes(id: Int, size: Int): Long = {
    var live = size.toLong
    var g = 0
    while (g < groups) { if (g != id) live += sizes(g); g += 1 }
    val wanted = math.max(arena.length.toLong, 2 * live)
    if (wanted > MaxArenaBytes) { if (live <= MaxArenaBytes) MaxArenaBytes else Long.MaxValue }
    else wanted
  }

  /** Copies the live rows, by group id, to the start of a new arena of `length` bytes. */
  private def moveLiveRows(length: Int): Unit = {
    val moved = new Array[Byte](length)
    var at = 0
    var g = 0
    while (g < groups) {
      System.arraycopy(arena, offsets(g), moved, at, sizes(g))
      offsets(g) = at
      spaces(g) = sizes(g)
      at += sizes(g)
      g += 1
    }
    arena = moved
    end = at
  }
}

object BestRowPerGroup {
  private val InitialBytes = 1 << 16

  /** The largest byte array the JVM allocates, rounded down to whole words. */
  private val MaxArenaBytes = (Int.MaxValue - 15L) & ~7L
}
