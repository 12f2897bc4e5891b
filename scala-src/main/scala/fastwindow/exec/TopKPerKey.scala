package fastwindow.exec

import java.util.Comparator

import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}

import org.apache.spark.sql.types.DataType

import fastwindow.frames.{GroupTopK, RankLimit}

/**
 * One task's groups (PARTITION BY keys, numbered by [[GroupIds]]), each with the rows a rank-like
 * limit may keep ([[GroupTopK]]). The rows held are accounted to the task's [[MemoryBudget]];
 * `offer` returns false, without adding the row, when more memory is refused, and the caller
 * decides (emit what is held, or sort instead).
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
  /** By group id: the rows kept. */
  private var groups = new Array[GroupTopK[UnsafeRow]](16)
  private var count = 0
  private var heldBytes = 0L
  private var peakBytes = 0L

  def peak: Long = peakBytes
  def isEmpty: Boolean = count == 0

  /** Adds `row` to its group if the limit may keep it; false when memory for it is refused. */
  def offer(row: UnsafeRow): Boolean = {
    val key = keyOf(row)
    val id = ids.find(key)
    if (id >= 0) {
      val group = groups(id)
      // The bounds mirror each group's bound: where they exist, they alone decide, and the
      // group's own comparison (which follows its bound row's bytes) is not made again.
      val admitted = if (bounds.isDefined) !bounds.get.refuses(id, row) else group.admits(row)
      if (!admitted) return true
      val before = group.bytes
      if (!fits(heldBytes + weigh(row))) return false
      group.add(row)
      heldBytes += group.bytes - before
      bounds.foreach(_.update(id, group.boundRow))
    } else {
      val added = weigh(key) + ids.bytesPerKey + GroupOverhead + BoundBytes + weigh(row)
      if (!fits(heldBytes + added)) return false
      val group = new GroupTopK[UnsafeRow](rank, limit, order, weigh, copyRow)
      if (count == groups.length) groups = java.util.Arrays.copyOf(groups, count * 2)
      groups(ids.add(key)) = group
      count += 1
      group.add(row)
      heldBytes += added
      bounds.foreach(_.update(count - 1, group.boundRow))
    }
    peakBytes = math.max(peakBytes, heldBytes)
    true
  }

  private def fits(bytes: Long): Boolean = budget.fits(bytes)

  /** The groups' ids, in no order. */
  def groupIds: Array[Int] = Array.range(0, count)
  /** The groups' ids in ascending key order (NULL first) by `keyOrder` over the key rows. */
  def idsInKeyOrder(keyOrder: Comparator[UnsafeRow]): Array[Int] =
    ids.idsInKeyOrder.getOrElse {
      val boxed: Array[Integer] = groupIds.map(Int.box)
      java.util.Arrays.sort(boxed, (a: Integer, b: Integer) => keyOrder.compare(ids.key(a), ids.key(b)))
      boxed.map(_.intValue)
    }
  /** The group's kept rows in its order. */
  def kept(id: Int): Iterator[UnsafeRow] = groups(id).result()

  /** Every row held, unsorted and not cut to the limit yet. */
  def heldRows: Iterator[UnsafeRow] = groups.iterator.take(count).flatMap(_.held)

  /** Forgets every group and returns their memory. */
  def clear(): Unit = {
    ids = GroupIds(keyTypes)
    bounds.foreach(_.clear())
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
