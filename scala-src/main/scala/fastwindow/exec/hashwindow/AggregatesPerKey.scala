package fastwindow.exec.hashwindow

import org.apache.spark.sql.catalyst.expressions.{JoinedRow, MutableProjection, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType
import org.apache.spark.unsafe.Platform

import fastwindow.exec.shared.{GroupIds, MemoryBudget}

/**
 * One task's whole-partition aggregates by PARTITION BY key, and the key of every row added.
 *
 * There is one aggregation buffer per key (groups numbered by [[fastwindow.exec.shared.GroupIds]]),
 * and the group of every row added is kept so that a second pass over the rows can join each to its
 * group's results. Buffers are Spark's own: `update` is the aggregates' `updateExpressions` over
 * (buffer, row), writing into the buffer, applied in input order. Only aggregates whose result does
 * not depend on that order are planned here ([[fastwindow.planning.HashWindowSupport]]).
 *
 * Every group's buffer has the initial buffer's fixed size (the planner accepts only buffers Spark
 * updates in place), so the buffers lie side by side in one array, by group id, and so do the
 * results once `finish` has evaluated them: with 10^5 groups, a row object and byte array per
 * group cost a cache miss or two more per input row, and the collector's time to trace them.
 *
 * Group state and row groups are accounted to `budget`; `add` and `finish` return false, with
 * nothing changed, when more memory is refused. Integral sums are watched by `guard`, if any: when
 * it says an order could overflow, Spark's order must decide.
 */
final class AggregatesPerKey(
    keyOf: UnsafeProjection,
    keyTypes: Seq[DataType],
    initialBuffer: UnsafeRow,
    update: MutableProjection,
    guard: Option[IntegralSumGuard],
    budget: MemoryBudget) {

  private var ids = GroupIds(keyTypes)
  private val bufferBytes = initialBuffer.getSizeInBytes

  /** Group g's aggregation buffer: bytes [g * bufferBytes, (g + 1) * bufferBytes). */
  private var buffers = new Array[Long](16 * bufferBytes / 8)

  /** The buffer `update` writes: pointed at the group of the row being added. */
  private val buffer = new UnsafeRow(initialBuffer.numFields)
  update.target(buffer)
  private var groups = 0

  /** By row, in the order added: its group's id. */
  private var rowGroups = new Array[Int](1024)
  private var rows = 0

  /** Group g's results, once `finish` has run: bytes [resultStarts(g), resultStarts(g + 1)). */
  private var results: Array[Byte] = _
  private var resultStarts: Array[Int] = _
  private var result: UnsafeRow = _
  private var heldBytes = 0L
  private var peakBytes = 0L
  private val joined = new JoinedRow

  def peak: Long = peakBytes
  def groupCount: Int = groups

  /**
   * Whether an order of some group's rows could overflow one of its integral sums (also when the
   * memory to tell is refused), given the rows added, again, in the same order.
   */
  def mayOverflow(rowsAgain: => Iterator[UnsafeRow]): Boolean = guard.exists { g =>
    g.tripped && (!hold(g.bytesPerGroup * groups) || g.mayOverflow(rowsAgain, rowGroups, groups))
  }

  /** Adds `row` to its group's aggregates; false, with nothing changed, when memory is refused. */
  def add(row: UnsafeRow): Boolean = {
    if (rows == rowGroups.length) {
      if (!hold(4L * rows)) return false
      rowGroups = java.util.Arrays.copyOf(rowGroups, 2 * rows)
    }
    val key = keyOf(row)
    var id = ids.find(key)
    if (id < 0) {
      val full = (groups + 1L) * bufferBytes > 8L * buffers.length
      if (!hold(ids.bytesPerKey + key.getSizeInBytes +
          (if (full) 8L * buffers.length else 0L))) return false
      id = ids.add(key)
      if (full) buffers = java.util.Arrays.copyOf(buffers, 2 * buffers.length)
      Platform.copyMemory(initialBuffer.getBaseObject, initialBuffer.getBaseOffset, buffers,
        Platform.LONG_ARRAY_OFFSET + id.toLong * bufferBytes, bufferBytes)
      groups += 1
    }
    buffer.pointTo(buffers, Platform.LONG_ARRAY_OFFSET + id.toLong * bufferBytes, bufferBytes)
    update(joined(buffer, row))
    guard.foreach(_.add(row))
    rowGroups(rows) = id
    rows += 1
    true
  }

  /**
   * Evaluates every group's results by `evaluate` over its buffer, after the last `add`; false,
   * with nothing kept, when their memory is refused.
   */
  def finish(evaluate: UnsafeProjection): Boolean = {
    if (!hold(4L * (groups + 1) + 64)) return false
    val starts = new Array[Int](groups + 1)
    var bytes = new Array[Byte](64)
    var id = 0
    while (id < groups) {
      buffer.pointTo(buffers, Platform.LONG_ARRAY_OFFSET + id.toLong * bufferBytes, bufferBytes)
      val evaluated = evaluate(buffer)
      val (start, size) = (starts(id), evaluated.getSizeInBytes)
      if (start + size > bytes.length) {
        // Room for the rest at this group's size, and at least twice what there is.
        val length = math.max(2L * bytes.length, start + size.toLong * (groups - id))
        if (length > Int.MaxValue - 8 || !hold(length - bytes.length)) return false
        bytes = java.util.Arrays.copyOf(bytes, length.toInt)
      }
      evaluated.writeToMemory(bytes, Platform.BYTE_ARRAY_OFFSET + start)
      starts(id + 1) = start + size
      if (result == null) result = new UnsafeRow(evaluated.numFields)
      id += 1
    }
    results = bytes
    resultStarts = starts
    true
  }

  /** The results of the `i`th row's group (after `finish`); valid until the next call. */
  def resultsOfRow(i: Int): UnsafeRow = {
    val g = rowGroups(i)
    result.pointTo(results, Platform.BYTE_ARRAY_OFFSET + resultStarts(g),
      resultStarts(g + 1) - resultStarts(g))
    result
  }

  /** The group of the `i`th row added. */
  def groupOf(i: Int): Int = rowGroups(i)

  /** Whether `more` bytes may be held, then held. */
  private def hold(more: Long): Boolean = budget.fits(heldBytes + more) && {
    heldBytes += more
    peakBytes = math.max(peakBytes, heldBytes)
    true
  }

  /** Forgets every group and row, and returns their memory. */
  def clear(): Unit = {
    ids = GroupIds(keyTypes)
    buffers = new Array[Long](16 * bufferBytes / 8)
    rowGroups = new Array[Int](1024)
    results = null
    resultStarts = null
    result = null
    groups = 0
    rows = 0
    heldBytes = 0
    budget.release()
  }
}
