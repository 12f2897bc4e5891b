package fastwindow.ops

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{EmptyRow, InterpretedMutableProjection, JoinedRow, SpecificInternalRow}

import fastwindow.columns.{Column, ColumnarRowView}

/**
 * [[AggregateOps]] by `Expression.eval`: the accumulator and each slot are rows of the
 * aggregation buffer, updated by Spark's interpreted mutable projections (which evaluate every
 * expression before writing).
 */
final class InterpretedAggregateOps(request: AggregateRequest, columns: Array[Column])
  extends AggregateOps(request.slotBytes) {

  private val bound = request.aggregate
  private val types = bound.bufferTypes
  private val ordinal = request.ordinal
  private val initial = new InterpretedMutableProjection(bound.initial)
  private val updates = new InterpretedMutableProjection(bound.update)
  private lazy val merges = new InterpretedMutableProjection(bound.merge)
  private val view = new ColumnarRowView(columns)
  private val withRow = new JoinedRow
  private val pair = new JoinedRow
  private val acc = new SpecificInternalRow(types)

  /** Scratch buffers: a row's own buffer, an empty frame's, a merge that is only written. */
  private val scratch = new SpecificInternalRow(types)
  private var buffers = new Array[InternalRow](AggregateOps.InitialSlots)
  private var result: Any = null

  private def slot(s: Int): InternalRow = {
    var b = buffers(s)
    if (b == null) {
      b = new SpecificInternalRow(types)
      buffers(s) = b
    }
    b
  }

  private def initialize(buffer: InternalRow): InternalRow = initial.target(buffer)(EmptyRow)

  private def update(buffer: InternalRow, row: Int): InternalRow = {
    view.row = row
    updates.target(buffer)(withRow(buffer, view))
  }

  override def reset(): Unit = initialize(acc)

  override def seed(buffer: InternalRow): Unit = {
    var k = 0
    while (k < types.length) {
      if (buffer.isNullAt(k)) acc.setNullAt(k) else acc.update(k, buffer.get(k, types(k)))
      k += 1
    }
  }
  override def add(row: Int): Unit = update(acc, row)

  override def addRange(from: Int, until: Int): Unit = {
    var j = from
    while (j < until) { update(acc, j); j += 1 }
  }

  override def evaluate(): Unit = result = bound.evaluate.eval(acc)

  override def writeResult(out: InternalRow): Unit =
    if (result == null) out.setNullAt(ordinal) else out.update(ordinal, result)

  override def write(out: InternalRow): Boolean = written(acc, out)

  override def writeEmpty(out: InternalRow): Unit = written(initialize(scratch), out)

  override def slots: Int = buffers.length

  override def growSlots(minSlots: Int): Unit = if (minSlots > buffers.length) {
    buffers = java.util.Arrays.copyOf(buffers, AggregateOps.grownSlots(buffers.length, minSlots))
  }

  override def foldSuffix(from: Int, until: Int): Unit = {
    var j = until - 1
    while (j >= from) {
      val own = update(initialize(if (j == until - 1) slot(j) else scratch), j)
      if (j < until - 1) merges.target(slot(j))(pair(own, slot(j + 1)))
      j -= 1
    }
  }

  // Rows are moved, not copied: every slot keeps a row object of its own.
  override def moveSlots(from: Int, to: Int, count: Int): Unit = if (from != to && count > 0) {
    def swap(a: Int, b: Int): Unit = {
      val t = buffers(a)
      buffers(a) = buffers(b)
      buffers(b) = t
    }
    if (to < from) {
      var k = 0
      while (k < count) { swap(to + k, from + k); k += 1 }
    } else {
      var k = count - 1
      while (k >= 0) { swap(to + k, from + k); k -= 1 }
    }
  }

  override def writeMerged(s: Int, out: InternalRow): Boolean =
    written(merges.target(scratch)(pair(slot(s), acc)), out)

  /** Unless the guard fires on `buffer`: evaluates it and writes the result. */
  private def written(buffer: InternalRow, out: InternalRow): Boolean =
    if (request.needsExact.exists(_.eval(buffer) == true)) false
    else {
      result = bound.evaluate.eval(buffer)
      writeResult(out)
      true
    }
}
