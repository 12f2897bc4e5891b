package fastwindow.exec.grouplimit

import java.util.Comparator

import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}

import org.apache.spark.sql.types.DataType

import fastwindow.exec.shared.{GroupIds, MemoryBudget}
import fastwindow.frames.{GroupTopK, RankLimit}

/**
 * One task's groups (PARTITION BY keys, numbered by [[fastwindow.exec.shared.GroupIds]]), each
 * with the rows a rank-like limit may keep: for `row_number() <= 1`, its one row in a
 * [[BestRowPerGroup]] arena; otherwise a [[GroupTopK]]. The rows held are accounted to the task's
 * [[fastwindow.exec.shared.MemoryBudget]]; `offer` returns false, without adding the row, when
 * more memory is refused, and the caller decides (emit what is held, or sort instead).
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

  /** For row_number <= 1 (else null): each group's row. */
  private val best =
    if (limit == 1 && rank == RankLimit.RowNumber) new BestRowPerGroup(order) else null

  /** Otherwise, by group id: the rows kept. */
  private var groups = new Array[GroupTopK[UnsafeRow]](16)
  private var count = 0

  /** Bytes held by the groups' keys and bounds, and, without `best`, by their rows. */
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
    val id = ids.find(key)
    // The bounds mirror each group's bound: where they exist, they alone decide, and the
    // group's own comparison (which follows its bound row's bytes) is not made again.
    if (id >= 0 && (if (bounds.isDefined) bounds.get.refuses(id, row) else !admits(id, row))) {
      dropped += 1
      return true
    }
    val added = if (id >= 0) 0L else weigh(key) + ids.bytesPerKey + BoundBytes
    val kept = if (best != null) offerBest(id, key, row, added) else offerTopK(id, key, row, added)
    if (kept) peakBytes = math.max(peakBytes, heldBytes + (if (best != null) best.bytes else 0L))
    kept
  }

  private def admits(id: Int, row: UnsafeRow): Boolean =
    if (best != null) best.admits(id, row) else groups(id).admits(row)

  private def offerBest(id: Int, key: UnsafeRow, row: UnsafeRow, added: Long): Boolean = {
    val groupId = if (id >= 0) id else count
    if (!fits(heldBytes + added + best.bytesAfterPut(groupId, row))) return false
    if (id < 0) {
      ids.add(key)
      count += 1
      heldBytes += added
    } else {
      dropped += 1
    }
    best.put(groupId, row)
    bounds.foreach(_.update(groupId, best.kept(groupId)))
    true
  }

  private def offerTopK(id: Int, key: UnsafeRow, row: UnsafeRow, added: Long): Boolean = {
    if (!fits(heldBytes + added + GroupOverhead + weigh(row))) return false
    val group = if (id >= 0) groups(id)
    else {
      val group = new GroupTopK[UnsafeRow](rank, limit, order, weigh, copyRow)
      if (count == groups.length) groups = java.util.Arrays.copyOf(groups, count * 2)
      groups(ids.add(key)) = group
      count += 1
      heldBytes += added + GroupOverhead
      group
    }
    val (bytesBefore, rowsBefore) = (group.bytes, group.count)
    group.add(row)
    heldBytes += group.bytes - bytesBefore
    dropped += rowsBefore + 1 - group.count
    bounds.foreach(_.update(if (id >= 0) id else count - 1, group.boundRow))
    true
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
   * Whether each group's row sits in one arena (`row_number() <= 1`), with no object per group:
   * then a group per row costs about what a sort's row does.
   */
  def keepsRowsInArena: Boolean = best != null

  /**
   * The kept rows of the groups `ids`, in that order, each group's in its order; each row is
   * valid until the next one is read.
   */
  def keptRows(ids: Iterator[Int]): Iterator[UnsafeRow] =
    if (best != null) ids.map(best.kept) else ids.flatMap(groups(_).result())

  /** Every row held, unsorted and not cut to the limit yet (each valid until the next is read). */
  def heldRows: Iterator[UnsafeRow] =
    if (best != null) Iterator.range(0, count).map(best.kept)
    else groups.iterator.take(count).flatMap(_.held)

  /** Forgets every group and returns their memory. */
  def clear(): Unit = {
    ids = GroupIds(keyTypes)
    bounds.foreach(_.clear())
    if (best != null) best.clear() else groups = new Array[GroupTopK[UnsafeRow]](16)
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
