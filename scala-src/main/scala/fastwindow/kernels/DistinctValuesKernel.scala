package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, SpecificInternalRow}
import org.apache.spark.sql.types.{DataType, StructType}

import fastwindow.frames.{DistinctCounts, DistinctSums, FrameLocator}
import fastwindow.ops.ValueOps

/**
 * Counts, sums or averages the distinct values of each frame in O(n) per partition.
 *
 * The aggregate is their number (`size(collect_set(x))`, and `count(DISTINCT ...)` once rewritten
 * to it) or their sum or average (`sum/avg(DISTINCT x)`, see [[DistinctValuesKernel.Fold]]), over
 * any frame whose edges only move forward (whole, running, moving, shrinking, ROWS or RANGE);
 * floating sums take O(n log n). Each buffered row's value is replaced by an id (equal values,
 * equal ids: a hash map of the values' bytes, built once per partition), and the frame's ids are
 * counted ([[DistinctCounts]]) as rows enter and leave it, the sum following the ids that appear
 * and disappear ([[DistinctSums]]). Spark builds a set of each frame's values again (O(w) per row).
 *
 * Two values are the same when their unsafe bytes are: the caller gives a key whose equal values
 * have equal bytes (binary collations, floating values normalized where Spark's set treats NaN
 * and -0.0 as one) and which is null for rows the set does not take.
 *
 * @param key     the value of each row, null where it is not counted: a struct whose first field
 *                is the value
 * @param keyType its type
 * @param fold    None for the count, else the aggregate of the values
 */
final class DistinctValuesKernel(
    frame: FrameLocator,
    key: ValueOps,
    keyType: DataType,
    fold: Option[DistinctValuesKernel.Fold],
    ordinal: Int)
  extends Kernel {

  private val ids = new ValueIds(key, keyType)
  private val counts = new DistinctCounts
  private val sums = fold.map(_.sums())
  private val valueType = keyType.asInstanceOf[StructType].head.dataType
  private val buffer = fold.map(f => new SpecificInternalRow(f.bufferTypes))
  private val writeResult = fold.map(f => new ValueWriter(ordinal, f.evaluate.dataType))

  /** Rows `[lo, hi)` are in `counts`. */
  private var lo = 0
  private var hi = 0

  override def startPartition(): Unit = frame.reset()

  override def finishPartition(n: Int): Unit = {
    ids.assign(n)
    for (s <- sums) {
      s.reset(ids.count)
      (0 until ids.count).foreach(id =>
        s.define(id, ids.keyOf(id).getStruct(0, 1).get(0, valueType)))
    }
    counts.reset(ids.count)
    lo = 0
    hi = 0
  }

  override def write(i: Int, n: Int, out: InternalRow): Unit = {
    frame.locate(i, n)
    moveTo(frame.first, math.max(frame.last + 1, frame.first))
    fold match {
      case None => out.setInt(ordinal, counts.distinct)
      case Some(f) => writeResult.get(out, f.result(counts.distinct, sums.get.total, buffer.get))
    }
  }

  /** Makes `counts` hold rows `[first, end)`; both edges only move forward. */
  private def moveTo(first: Int, end: Int): Unit = {
    val rowIds = ids.rowIds
    while (hi < end) {
      val id = rowIds(hi)
      if (id >= 0 && counts.add(id)) sums.foreach(_.present(id))
      hi += 1
    }
    while (lo < first) {
      val id = rowIds(lo)
      if (id >= 0 && counts.remove(id)) sums.foreach(_.absent(id))
      lo += 1
    }
  }

  override def needsSpark: Boolean = sums.exists(!_.orderFree)

  override def shift(d: Int): Unit =
    throw new IllegalStateException("distinct counts are never streamed")
  override def stateBytes: Long = ids.bytes + counts.bytes + sums.fold(0L)(_.bytes)
  override def stateBytesPerRow: Long = ValueIds.bytesPerRow(keyType) + DistinctCounts.BytesPerId +
    (if (fold.isDefined) DistinctValuesKernel.SumBytesPerId else 0L)
}

object DistinctValuesKernel {

  /** A value and its tree node, or a decimal's object (the larger). */
  val SumBytesPerId: Long = 8L + DistinctSums.DecimalBytes

  /**
   * A Spark aggregate of the frame's distinct values whose buffer is their sum and count
   * (`Sum`, `Average`): fastwindow keeps the sum, and Spark's own result expression reads the
   * buffer, so the result's type, rounding and errors are Spark's.
   *
   * @param bufferFields the aggregate's buffer, by name: `sum`, `count`, `isEmpty`
   * @param initial      the buffer of an empty frame (the aggregate's initial values)
   * @param evaluate     the aggregate's result, reading the buffer as bound references
   * @param sums         the sums of the sum field's type
   */
  final case class Fold(
      bufferFields: Seq[String],
      bufferTypes: Seq[DataType],
      initial: Seq[Any],
      evaluate: Expression,
      sums: () => DistinctSums) {

    /** The aggregate over a frame of `distinct` values summing to `total`. */
    def result(distinct: Int, total: => Any, buffer: SpecificInternalRow): Any = {
      var f = 0
      while (f < bufferFields.length) {
        buffer.update(f,
          if (distinct == 0) initial(f)
          else bufferFields(f) match {
            case "sum" => total
            case "count" => distinct.toLong
            case "isEmpty" => false
          })
        f += 1
      }
      evaluate.eval(buffer)
    }
  }
}
