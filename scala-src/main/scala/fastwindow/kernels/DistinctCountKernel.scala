package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType

import fastwindow.frames.{DistinctCounts, FrameLocator}
import fastwindow.ops.ValueOps

/**
 * The number of distinct values in a frame (`size(collect_set(x))`, and `count(DISTINCT ...)`
 * once rewritten to it) over any frame whose edges only move forward — whole, running, moving,
 * shrinking, ROWS or RANGE — in O(n) per partition: each buffered row's value is replaced by an
 * id (equal values, equal ids: a hash map of the values' bytes, built once per partition), and
 * the frame's ids are counted ([[DistinctCounts]]) as rows enter and leave it. Spark builds a set
 * of each frame's values again (O(w) per row).
 *
 * Two values are the same when their unsafe bytes are: the caller gives a key whose equal values
 * have equal bytes (binary collations, floating values normalized where Spark's set treats NaN
 * and -0.0 as one) and which is null for rows the set does not take.
 *
 * @param key     the value of each row, null where it is not counted
 * @param keyType its type
 */
final class DistinctCountKernel(
    frame: FrameLocator,
    key: ValueOps,
    keyType: DataType,
    ordinal: Int) extends Kernel {

  private val scratch = new SpecificInternalRow(Seq(keyType))
  private val keyBytes = UnsafeProjection.create(Array(keyType))
  private val ids = new java.util.HashMap[UnsafeRow, Integer]
  private var idBytes = 0L
  /** Each buffered row's value id, -1 where it has none. */
  private var rowIds = new Array[Int](16)
  private val counts = new DistinctCounts
  /** Rows `[lo, hi)` are in `counts`. */
  private var lo = 0
  private var hi = 0

  override def startPartition(): Unit = frame.reset()

  override def finishPartition(n: Int): Unit = {
    if (rowIds.length < n) rowIds = new Array[Int](math.max(n, rowIds.length * 2))
    ids.clear()
    idBytes = 0L
    var r = 0
    while (r < n) {
      key.write(r, scratch)
      rowIds(r) = if (scratch.isNullAt(0)) -1 else idOf(keyBytes(scratch))
      r += 1
    }
    counts.reset(ids.size)
    lo = 0
    hi = 0
  }

  private def idOf(value: UnsafeRow): Int = {
    val known = ids.get(value)
    if (known != null) known
    else {
      val id = ids.size
      ids.put(value.copy(), id)
      idBytes += value.getSizeInBytes + DistinctCountKernel.EntryBytes
      id
    }
  }

  override def write(i: Int, n: Int, out: InternalRow): Unit = {
    frame.locate(i, n)
    moveTo(frame.first, math.max(frame.last + 1, frame.first))
    out.setInt(ordinal, counts.distinct)
  }

  /** Makes `counts` hold rows `[first, end)`; both edges only move forward. */
  private def moveTo(first: Int, end: Int): Unit = {
    while (hi < end) {
      if (rowIds(hi) >= 0) counts.add(rowIds(hi))
      hi += 1
    }
    while (lo < first) {
      if (rowIds(lo) >= 0) counts.remove(rowIds(lo))
      lo += 1
    }
  }

  override def shift(d: Int): Unit =
    throw new IllegalStateException("distinct counts are never streamed")
  override def stateBytes: Long = 4L * rowIds.length + counts.bytes + idBytes
  override def stateBytesPerRow: Long =
    4L + DistinctCounts.BytesPerId + DistinctCountKernel.EntryBytes + 16L + keyType.defaultSize
}

object DistinctCountKernel {
  /** A hash map entry, its boxed id and an `UnsafeRow` object, besides the value's bytes. */
  val EntryBytes: Long = 96L
}
