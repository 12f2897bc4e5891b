package fastwindow.exec

import org.apache.spark.sql.catalyst.expressions.{JoinedRow, MutableProjection, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType

/**
 * One task's whole-partition aggregates, one aggregation buffer per PARTITION BY key (groups
 * numbered by [[GroupIds]]), and the group of every row added, so a second pass over the rows can
 * join each to its group's results. Buffers are Spark's own: `update` is the aggregates'
 * `updateExpressions` over (buffer, row), writing into the buffer, applied in input order. Only
 * aggregates whose result does not depend on that order are planned here
 * ([[fastwindow.planning.HashWindowSupport]]).
 *
 * Group state and row groups are accounted to `budget`; `add` returns false, with nothing
 * changed, when more memory is refused. Integral sums are watched by `guard`, if any: when it
 * says an order could overflow, Spark's order must decide.
 */
final class AggregatesPerKey(
    keyOf: UnsafeProjection,
    keyTypes: Seq[DataType],
    initialBuffer: UnsafeRow,
    update: MutableProjection,
    guard: Option[IntegralSumGuard],
    budget: MemoryBudget) {
  import AggregatesPerKey._

  private var ids = GroupIds(keyTypes)
  private var buffers = new Array[UnsafeRow](16)
  private var groups = 0
  /** By row, in the order added: its group's id. */
  private var rowGroups = new Array[Int](1024)
  private var rows = 0
  private var heldBytes = 0L
  private var peakBytes = 0L
  private val joined = new JoinedRow

  def peak: Long = peakBytes
  def groupCount: Int = groups
  /** Whether an order of some group's rows could overflow one of its integral sums. */
  def mayOverflow: Boolean = guard.exists(_.mayOverflow)

  /** Adds `row` to its group's aggregates; false, with nothing changed, when memory is refused. */
  def add(row: UnsafeRow): Boolean = {
    if (rows == rowGroups.length) {
      val more = 4L * rows
      if (!budget.fits(heldBytes + more)) return false
      rowGroups = java.util.Arrays.copyOf(rowGroups, 2 * rows)
      heldBytes += more
    }
    val key = keyOf(row)
    var id = ids.find(key)
    if (id < 0) {
      val added = ids.bytesPerKey + key.getSizeInBytes + initialBuffer.getSizeInBytes + RowBytes +
        guard.fold(0L)(_.bytesPerGroup)
      if (!budget.fits(heldBytes + added)) return false
      id = ids.add(key)
      if (id == buffers.length) buffers = java.util.Arrays.copyOf(buffers, 2 * id)
      buffers(id) = initialBuffer.copy()
      groups += 1
      heldBytes += added
    }
    peakBytes = math.max(peakBytes, heldBytes)
    val buffer = buffers(id)
    update.target(buffer)
    update(joined(buffer, row))
    guard.foreach(_.add(id, row))
    rowGroups(rows) = id
    rows += 1
    true
  }

  /** The group of the `i`th row added. */
  def groupOf(i: Int): Int = rowGroups(i)

  /** Every group's results by `evaluate` over its buffer, by group id. */
  def results(evaluate: UnsafeProjection): Array[UnsafeRow] =
    Array.tabulate(groups)(id => evaluate(buffers(id)).copy())

  /** Forgets every group and row, and returns their memory. */
  def clear(): Unit = {
    ids = GroupIds(keyTypes)
    buffers = new Array[UnsafeRow](16)
    rowGroups = new Array[Int](1024)
    groups = 0
    rows = 0
    heldBytes = 0
    budget.release()
  }
}

object AggregatesPerKey {
  /** A copied buffer row: the UnsafeRow object, its byte array's header, the array slot. */
  private val RowBytes = 64L
}
