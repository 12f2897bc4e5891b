package fastwindow.ops

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{EmptyRow, InterpretedMutableProjection, JoinedRow, SpecificInternalRow}

import fastwindow.columns.{Column, ColumnarRowView}

/**
 * [[AggregateOps]] by `Expression.eval`: each slot is a row of the aggregation buffer, updated by
 * Spark's interpreted mutable projections (which evaluate every expression before writing, as
 * the contract asks).
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

  override def slots: Int = buffers.length

  override def growSlots(minSlots: Int): Unit = if (minSlots > buffers.length) {
    buffers = java.util.Arrays.copyOf(buffers, AggregateOps.grownSlots(buffers.length, minSlots))
  }

  override def init(s: Int): Unit = initial.target(slot(s))(EmptyRow)

  override def update(s: Int, row: Int): Unit = {
    val b = slot(s)
    view.row = row
    updates.target(b)(withRow(b, view))
  }

  override def updateRange(s: Int, from: Int, until: Int): Unit = {
    var j = from
    while (j < until) { update(s, j); j += 1 }
  }

  override def merge(s: Int, left: Int, right: Int): Unit =
    merges.target(slot(s))(pair(slot(left), slot(right)))

  override def foldSuffix(base: Int, from: Int, until: Int): Unit = {
    var j = until - 1
    while (j >= from) {
      init(base + j)
      update(base + j, j)
      if (j < until - 1) merge(base + j, base + j, base + j + 1)
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

  override def evaluate(s: Int): Unit = result = bound.evaluate.eval(slot(s))

  override def writeResult(out: InternalRow): Unit =
    if (result == null) out.setNullAt(ordinal) else out.update(ordinal, result)

  override def needsExact(s: Int): Boolean = request.needsExact.exists(_.eval(slot(s)) == true)
}
