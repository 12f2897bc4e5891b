package fastwindow.exec.grouplimit

import java.util.Comparator

import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}

import org.apache.spark.sql.types.DataType

import fastwindow.exec.shared.{GroupIds, MemoryBudget}
import fastwindow.frames.{GroupTopK, RankLimit}

/**
 * One task's groups (PARTITION BY keys, numbered by [[fastwindow.exec.shared.GroupIds]]), each
 * with the rows a rank-like limit may keep: for limits up to [[TopRowsPerGroup.MaxLimit]], in one
 * [[TopRowsPerGroup]] arena while they fit its slots (ties of rank and dense_rank may not);
 * otherwise in a [[GroupTopK]] of the group's own.
 * The rows held are accounted to the task's [[fastwindow.exec.shared.MemoryBudget]]; `offer`
 * returns false, without adding the row, when more memory is refused, and the caller decides
 * (emit what is held, or sort instead).
 */
final class TopKPerKey(
    keyOf: UnsafeProjection,
    keyTypes: Seq[DataType],
    rank: RankLimit,
    limit: Int,
    order: Comparator[UnsafeRow],
    bounds: Option[IntegralOrderBounds],
    budget: MemoryBudget) {
  import TopKPerKey._

  private var ids = GroupIds(keyTypes)

  /** Up to [[TopRowsPerGroup.MaxLimit]] (else null): the groups' rows while in the arena. */
  private val arena =
    if (limit <= TopRowsPerGroup.MaxLimit) {
      new TopRowsPerGroup(order, limit, rank, bounds.map(_.key))
    } else null

  /** By group id: the rows of a group not in `arena` (null for those in it). */
  private var groups = new Array[GroupTopK[UnsafeRow]](16)
  private var count = 0

  /** Bytes held by the groups' keys and bounds, and by the rows not in `arena`. */
  private var heldBytes = 0L
  private var peakBytes = 0L

  def peak: Long = peakBytes
  def isEmpty: Boolean = count == 0
  def numGroups: Int = count

  /**
   * Rows offered and not held, since this was made: refused by their group's bound, replacing
   * its row or cut from it. Not reset by `clear`: the caller measures what holding drops.
   */
  def droppedRows: Long = dropped
  private var dropped = 0L

  /** The PARTITION BY key of `row`, valid until the next call or offer. */
  def key(row: UnsafeRow): UnsafeRow = keyOf(row)

  /** Adds `row` to its group if the limit may keep it; false when memory for it is refused. */
  def offer(row: UnsafeRow): Boolean = {
    val key = keyOf(row)
    lastKey = key
    val id = ids.find(key)
    if (id >= 0 && !admits(id, row)) {
      dropped += 1
      return true
    }
    val added = if (id >= 0) 0L else weigh(key) + ids.bytesPerKey + BoundBytes
    val kept =
      if (inArena(id)) offerToArena(id, key, row, added) else offerTopK(id, key, row, added)
    if (kept) peakBytes = math.max(peakBytes, heldBytes + arenaBytes)
    kept
  }

  /** The PARTITION BY key of the row last offered, valid until the next call or offer. */
  def offeredKey: UnsafeRow = lastKey
  private var lastKey: UnsafeRow = _

  /** Whether group `id` (a new one if negative) holds its rows in `arena`. */
  private def inArena(id: Int): Boolean =
    arena != null && (id < 0 || id >= groups.length || groups(id) == null)

  private def arenaBytes: Long = if (arena != null) arena.bytes else 0L

  /**
   * Whether group `id`'s bound may keep `row`: the arena's slots decide for its groups (with the
   * row keys beside them, as cheaply as `bounds`), `bounds` where they exist for the others (the
   * group's own comparison follows its bound row's bytes).
   */
  private def admits(id: Int, row: UnsafeRow): Boolean =
    if (inArena(id)) arena.admits(id, row)
    else if (bounds.isDefined) !bounds.get.refuses(id, row)
    else groups(id).admits(row)

  private def offerToArena(id: Int, key: UnsafeRow, row: UnsafeRow, added: Long): Boolean = {
    val groupId = if (id >= 0) id else count
    if (!fits(heldBytes + added + arena.bytesAfterOffer(groupId, row))) return false
    val rowsBefore = if (id >= 0) arena.rowsOf(id) else 0
    val outcome = arena.offer(groupId, row)
    if (id < 0) {
      ids.add(key)
      count += 1
      heldBytes += added
    }
    if (outcome == TopRowsPerGroup.Overflow) {
      return offerTopK(groupId, key, row, 0L) // too many ties: the rows move to an object
    }
    dropped += rowsBefore + 1 - arena.rowsOf(groupId)
    true
  }

  private def offerTopK(id: Int, key: UnsafeRow, row: UnsafeRow, added: Long): Boolean = {
    if (!fits(heldBytes + arenaBytes + added + GroupOverhead + weigh(row))) return false
    val groupId = if (id >= 0) id
    else {
      count += 1
      heldBytes += added
      ids.add(key)
    }
    val group = topKOf(groupId)
    val (bytesBefore, rowsBefore) = (group.bytes, group.count)
    group.add(row)
    heldBytes += group.bytes - bytesBefore
    dropped += rowsBefore + 1 - group.count
    bounds.foreach(_.update(groupId, group.boundRow))
    true
  }

  /** Group `id`'s [[GroupTopK]], made for a new group or from the rows it held in `arena`. */
  private def topKOf(id: Int): GroupTopK[UnsafeRow] = {
    if (id >= groups.length) groups = java.util.Arrays.copyOf(groups, math.max(id + 1, count * 2))
    if (groups(id) == null) {
      val group = new GroupTopK[UnsafeRow](rank, limit, order, weigh, copyRow)
      if (arena != null && id < arena.count) {
        (0 until arena.rowsOf(id)).foreach(place => group.add(arena.row(id, place)))
        arena.release(id)
      }
      groups(id) = group
      heldBytes += GroupOverhead + group.bytes
    }
    groups(id)
  }

  private def fits(bytes: Long): Boolean = budget.fits(bytes)

  /** The groups' ids, in no order. */
  def groupIds: Array[Int] = Array.range(0, count)

  /** The groups' ids in ascending key order (NULL first) by `keyOrder` over the key rows. */
  def idsInKeyOrder(keyOrder: Comparator[UnsafeRow]): Array[Int] = ids.idsSortedBy(keyOrder)

  /**
   * Whether `rows` rows read had nearly one group each
   * ([[fastwindow.exec.shared.GroupIds.nearlyDistinct]]).
   */
  def nearlyDistinct(rows: Long): Boolean = ids.nearlyDistinct(rows)

  /**
   * Whether groups keep their rows in one arena (limits up to [[TopRowsPerGroup.MaxLimit]]), with
   * no object per group: then a group per row costs about what a sort's row does.
   */
  def keepsRowsInArena: Boolean = arena != null

  /**
   * The kept rows of the groups `ids`, in that order, each group's in its order; each row is
   * valid until the next one is read.
   */
  def keptRows(ids: Iterator[Int]): Iterator[UnsafeRow] = new GroupRows(ids, _.result())

  /** Every row held, unsorted and not cut to the limit yet (each valid until the next is read). */
  def heldRows: Iterator[UnsafeRow] = new GroupRows(Iterator.range(0, count), _.held)

  /** The rows of groups `ids` in turn: those in the arena, or `ofObject`'s of the others. */
  private final class GroupRows(ids: Iterator[Int],
      ofObject: GroupTopK[UnsafeRow] => Iterator[UnsafeRow])
    extends Iterator[UnsafeRow] {
    private var id = -1
    private var place = 0
    private var inArena = 0
    private var others: Iterator[UnsafeRow] = Iterator.empty

    override def hasNext: Boolean = {
      while (place == inArena && !others.hasNext && ids.hasNext) {
        id = ids.next()
        place = 0
        if (TopKPerKey.this.inArena(id)) inArena = arena.rowsOf(id)
        else {
          inArena = 0
          others = ofObject(groups(id))
        }
      }
      place < inArena || others.hasNext
    }

    override def next(): UnsafeRow = {
      if (!hasNext) throw new NoSuchElementException
      if (place < inArena) {
        place += 1
        arena.row(id, place - 1)
      } else others.next()
    }
  }

  /** Forgets every group and returns their memory. */
  def clear(): Unit = {
    ids = GroupIds(keyTypes)
    bounds.foreach(_.clear())
    if (arena != null) arena.clear()
    groups = new Array[GroupTopK[UnsafeRow]](16)
    count = 0
    heldBytes = 0
    budget.release()
  }
}

object TopKPerKey {

  /** `row` copied into `spare` (a row the group dropped; null if none): its buffer reused. */
  private def copyRow(row: UnsafeRow, spare: UnsafeRow): UnsafeRow =
    if (spare == null) row.copy() else { spare.copyFrom(row); spare }

  /** A copied row: the UnsafeRow object and its byte array's header and reference. */
  private def weigh(row: UnsafeRow): Long = row.getSizeInBytes + 56L

  /** A group: its two array slots, its [[GroupTopK]] and that one's first row array. */
  private val GroupOverhead = 160L

  /** A group's entry in [[IntegralOrderBounds]], when there is one. */
  private val BoundBytes = 16L
}
