package fastwindow.exec.grouporder

import java.util.Comparator

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst
  .expressions.{Ascending, Attribute, NullsFirst, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType
import org.apache.spark.unsafe.Platform

import fastwindow.exec.shared.{GroupIds, MemoryBudget, RowOrderings}
import fastwindow.frames.StableIndexSort

/**
 * Orders one task's rows window partition by window partition without sorting the whole task: the
 * rows are grouped by their PARTITION BY key in O(n) (ids by hash,
 * [[fastwindow.exec.shared.GroupIds]]), the distinct keys are sorted (a radix sort for one integral
 * key), the rows placed group by group in key order by a counting sort, and each group alone is
 * sorted by the ORDER BY keys. Spark sorts every row of the task by (partition keys, order keys),
 * and with two or more keys compares whole rows on every tie of the first; here the comparisons
 * stay inside groups, which are small and in cache, and the key comparisons are one per key, not
 * per row.
 *
 * The output is in Spark's order exactly: groups in ascending key order, NULL first, as the
 * `SortExec` below a window orders them, and within a group a stable sort, so ORDER BY ties keep
 * their input order as in Spark's in-memory sort (TimSort, with two or more sort keys). So
 * functions that see tied rows in order (row_number, lag, ROWS frames) give Spark's results, an
 * error is raised at the row where Spark raises it, and the operator above keeps Spark's output
 * ordering: nothing above sorts again.
 *
 * Rows are copied into byte pages. Every byte (pages, per-row arrays, the groups' ids and the
 * sort's scratch arrays) is asked of `budget` before it is taken; `add` returns false when it is
 * refused, and the caller then sorts with Spark's spilling sorter instead
 * ([[GroupedSorter.order]]).
 */
final class GroupedSorter(
    keyOf: UnsafeProjection,
    keyTypes: Seq[DataType],
    keyOrder: Comparator[UnsafeRow],
    order: GroupedSorter.Order,
    budget: MemoryBudget) {
  import GroupedSorter._

  private val ids = GroupIds(keyTypes)
  private var groups = 0
  private val pages = ArrayBuffer.empty[Array[Byte]]
  private var page: Array[Byte] = Array.emptyByteArray
  private var pageEnd = 0
  private var pageBytes = 0L

  /** By row: page index << 32 | offset in the page; its size; its group. */
  private var addresses = new Array[Long](InitialRows)
  private var sizes = new Array[Int](InitialRows)
  private var groupOf = new Array[Int](InitialRows)

  /** By row, for an order by one integral key: its value, and whether it is NULL. */
  private var orderValues: Array[Long] = order match {
    case _: ByIntegral => new Array[Long](InitialRows)
    case _ => null
  }
  private val orderNulls = new java.util.BitSet
  private var rows = 0
  private var peakBytes = 0L

  def rowCount: Int = rows
  def groupCount: Int = groups

  /**
   * Whether nearly every row taken so far had a key of its own
   * ([[fastwindow.exec.shared.GroupIds.nearlyDistinct]]).
   */
  def nearlyDistinct: Boolean = ids.nearlyDistinct(rows)

  /** The most bytes this held (or was about to hold). */
  def peak: Long = peakBytes

  /** Bytes held once `rows` rows of `pageBytes` are in, with the sort's arrays counted ahead. */
  private def bytesWith(capacity: Int, pageTotal: Long, groupTotal: Int): Long =
    pageTotal + capacity.toLong * (BytesPerRow + (if (orderValues == null) 0 else 8)) +
      groupTotal.toLong * (ids.bytesPerKey + BytesPerGroup)

  /** Takes a copy of `row`; false (and nothing taken) when the memory for it is refused. */
  def add(row: UnsafeRow): Boolean = {
    val key = keyOf(row)
    val known = ids.find(key)
    val size = row.getSizeInBytes
    // A row of no columns has no bytes, but its address needs a page.
    val newPage = page.length == 0 || pageEnd + size > page.length
    val capacity = if (rows == addresses.length) 2 * rows else addresses.length
    val wanted = bytesWith(capacity,
      pageBytes + (if (newPage) math.max(PageBytes, size) else 0),
      groups + (if (known < 0) 1 else 0))
    peakBytes = math.max(peakBytes, wanted)
    budget.fits(wanted) && {
      val group = if (known >= 0) known else { groups += 1; ids.add(key) }
      if (newPage) {
        page = new Array[Byte](math.max(PageBytes, size))
        pages += page
        pageBytes += page.length
        pageEnd = 0
      }
      if (capacity != addresses.length) grow(capacity)
      Platform.copyMemory(row.getBaseObject, row.getBaseOffset, page,
        Platform.BYTE_ARRAY_OFFSET + pageEnd, size)
      addresses(rows) = (pages.length - 1).toLong << 32 | pageEnd
      sizes(rows) = size
      groupOf(rows) = group
      order match {
        case ByIntegral(ordinal, width, _, _) =>
          if (row.isNullAt(ordinal)) orderNulls.set(rows)
          else orderValues(rows) = GroupIds.integralValue(row, ordinal, width)
        case _ =>
      }
      pageEnd += size
      rows += 1
      true
    }
  }

  private def grow(capacity: Int): Unit = {
    addresses = java.util.Arrays.copyOf(addresses, capacity)
    sizes = java.util.Arrays.copyOf(sizes, capacity)
    groupOf = java.util.Arrays.copyOf(groupOf, capacity)
    if (orderValues != null) orderValues = java.util.Arrays.copyOf(orderValues, capacity)
  }

  /** Points `view` at row `i`'s bytes. */
  private def point(view: UnsafeRow, i: Int): UnsafeRow = {
    val address = addresses(i)
    view.pointTo(pages((address >>> 32).toInt),
      Platform.BYTE_ARRAY_OFFSET + (address & 0xffffffffL).toInt, sizes(i))
    view
  }

  /** The rows taken, in input order; each valid until the next. */
  def inputOrder(numFields: Int): Iterator[UnsafeRow] = {
    rowsAt(i => i, numFields)
  }

  /** Rows `index(0)`, `index(1)`, ... up to the row count, through one view. */
  private def rowsAt(index: Int => Int, numFields: Int): Iterator[UnsafeRow] =
    new Iterator[UnsafeRow] {
      private val view = new UnsafeRow(numFields)
      private val count = rows
      private var k = 0
      override def hasNext: Boolean = k < count
      override def next(): UnsafeRow = {
        k += 1
        point(view, index(k - 1))
      }
    }

  /**
   * The rows taken, grouped by key in key order, each group sorted; each row valid until the next.
   * Its arrays were counted by `add`.
   */
  def sorted(numFields: Int): Iterator[UnsafeRow] = {
    // Groups renumbered by key order, then a counting sort by that number (stable: each group's
    // rows stay in input order).
    val inKeyOrder = ids.idsSortedBy(keyOrder)
    val rankOf = new Array[Int](groups)
    var g = 0
    while (g < groups) { rankOf(inKeyOrder(g)) = g; g += 1 }
    val starts = new Array[Int](groups + 1)
    var i = 0
    while (i < rows) {
      groupOf(i) = rankOf(groupOf(i))
      starts(groupOf(i) + 1) += 1
      i += 1
    }
    g = 0
    while (g < groups) { starts(g + 1) += starts(g); g += 1 }
    val next = java.util.Arrays.copyOf(starts, groups)
    val byGroup = new Array[Int](rows)
    i = 0
    while (i < rows) {
      val group = groupOf(i)
      byGroup(next(group)) = i
      next(group) += 1
      i += 1
    }
    groupOf = null
    val spare = new Array[Int](rows)
    val rowOrder = this.rowOrder(numFields)
    g = 0
    while (g < groups) {
      if (starts(g + 1) - starts(g) > 1) {
        StableIndexSort.sort(byGroup, starts(g), starts(g + 1), spare, rowOrder)
      }
      g += 1
    }
    rowsAt(byGroup(_), numFields)
  }

  private def rowOrder(numFields: Int): StableIndexSort.RowOrder = order match {
    case ByIntegral(_, _, ascending, nullsFirst) =>
      val values = orderValues
      val nulls = orderNulls
      val nullSign = if (nullsFirst) -1 else 1
      (a: Int, b: Int) => {
        val (aNull, bNull) = (nulls.get(a), nulls.get(b))
        if (aNull || bNull) {
          if (aNull == bNull) 0 else if (aNull) nullSign else -nullSign
        } else {
          val c = java.lang.Long.compare(values(a), values(b))
          if (ascending) c else -c
        }
      }
    case ByRows(comparator) =>
      val (left, right) = (new UnsafeRow(numFields), new UnsafeRow(numFields))
      (a: Int, b: Int) => comparator.compare(point(left, a), point(right, b))
  }

  /** Drops every row and returns the memory. Idempotent. */
  def clear(): Unit = {
    pages.clear()
    page = Array.emptyByteArray
    addresses = new Array[Long](0)
    sizes = new Array[Int](0)
    groupOf = new Array[Int](0)
    if (orderValues != null) orderValues = new Array[Long](0)
    orderNulls.clear()
    rows = 0
    budget.release()
  }
}

object GroupedSorter {

  /** How each group is sorted. */
  sealed trait Order

  /** By one integral ORDER BY key (of `width` bytes at `ordinal`), read once per row. */
  final case class ByIntegral(ordinal: Int, width: Int, ascending: Boolean, nullsFirst: Boolean)
    extends Order

  /** By Spark's ordering of the rows. */
  final case class ByRows(comparator: Comparator[UnsafeRow]) extends Order

  /**
   * How to sort a group by `orderSpec` over rows of `schema`: by the long values of one integral
   * column, or by Spark's ordering (generated, or interpreted on request).
   */
  def orderFor(orderSpec: Seq[SortOrder], schema: Seq[Attribute], interpreted: Boolean): Order =
    orderSpec match {
      case Seq(SortOrder(a: Attribute, direction, nulls, _))
          if GroupIds.integralWidth(a.dataType) > 0 && schema.exists(_.exprId == a.exprId) =>
        ByIntegral(schema.indexWhere(_.exprId == a.exprId), GroupIds.integralWidth(a.dataType),
          direction == Ascending, nulls == NullsFirst)
      case _ => ByRows(RowOrderings.ordering(orderSpec, schema, interpreted))
    }

  private val InitialRows = 1024
  private val PageBytes = 1 << 20

  /**
   * Per row: address 8, size 4, group 4, and the sort's two index arrays 4 + 4. Per group, beyond
   * its id table: its start and next position 4 + 4, its rank 4, and the key sort's arrays (for
   * one integral key: values and ids, and their spares, 24; and the result 4).
   */
  private val BytesPerRow = 24L
  private val BytesPerGroup = 40L

  /**
   * The task's rows in window-partition order: grouped and sorted by `sorter` or, once it refuses
   * memory, or when its first `sampleRows` rows (0: never) had nearly a key each, all of them
   * (those it took, then the rest) sorted by `sparkSorter()` (Spark's external sorter: it spills),
   * with `onSparkSort` called. With a group per row, placing rows group by group in key order
   * reads them in random order, and the sort inside groups is empty: Spark's sort, whose
   * comparisons then end at the first key, is as fast.
   */
  def order(
      input: Iterator[UnsafeRow],
      sorter: GroupedSorter,
      numFields: Int,
      sampleRows: Int,
      sparkSorter: () => org.apache.spark.sql.execution.UnsafeExternalRowSorter,
      onSparkSort: () => Unit): Iterator[UnsafeRow] = {
    var refused: UnsafeRow = null
    var distinct = false
    while (refused == null && !distinct && input.hasNext) {
      val row = input.next()
      if (!sorter.add(row)) refused = row
      else distinct = sorter.rowCount == sampleRows && sorter.nearlyDistinct
    }
    if (refused == null && !distinct) sorter.sorted(numFields)
    else {
      onSparkSort()
      val spark = sparkSorter()
      sorter.inputOrder(numFields).foreach(spark.insertRow)
      sorter.clear()
      if (refused != null) spark.insertRow(refused)
      input.foreach(spark.insertRow)
      spark.sort().asInstanceOf[Iterator[UnsafeRow]]
    }
  }
}
