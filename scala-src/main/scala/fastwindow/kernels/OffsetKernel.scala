package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow

import fastwindow.frames.NonNullRows
import fastwindow.ops.ValueOps

/**
 * lead and lag: O(1) per row.
 *
 * Without IGNORE NULLS the result for row i is the input at row i + offset (lag's offset is
 * negative), or the default evaluated on row i when that row is outside the partition. With
 * IGNORE NULLS it is the |offset|-th non-null input strictly after (lead) or before (lag) row i:
 * `finishPartition` lists the positions of the non-null inputs once, and a cursor into that list
 * moves forward with i, so a partition costs O(n). An offset of 0 returns the current row's input,
 * null or not, as Spark does. Without IGNORE NULLS, lead needs the next `offset` rows and lag the
 * previous |offset| rows only, so both stream; a negative buffered index then still means "before
 * the partition start", because a streaming evaluator keeps |offset| rows of history.
 */
final class OffsetKernel(offset: Int, ignoreNulls: Boolean, values: ValueOps) extends Kernel {
  private val skipsNulls = ignoreNulls && offset != 0
  private val nonNull = new NonNullRows
  private var cursor = 0

  // IGNORE NULLS needs the whole partition (it is never streamed), so its list is built here.
  override def finishPartition(n: Int): Unit = if (skipsNulls) {
    nonNull.reset()
    nonNull.scanTo(n - 1, values)
    cursor = 0
  }

  /** Row whose input is the result for row i, or -1 when the default applies. */
  private def sourceRow(i: Int, n: Int): Int =
    if (!skipsNulls) {
      val target = i.toLong + offset
      if (target < n) target.toInt else -1
    } else if (offset > 0) {
      while (cursor < nonNull.count && nonNull(cursor) <= i) cursor += 1
      val p = cursor.toLong + offset - 1
      if (p < nonNull.count) nonNull(p.toInt) else -1
    } else {
      while (cursor < nonNull.count && nonNull(cursor) < i) cursor += 1
      val p = cursor.toLong + offset
      if (p >= 0) nonNull(p.toInt) else -1
    }

  override def write(i: Int, n: Int, out: InternalRow): Unit = {
    val source = sourceRow(i, n)
    if (source >= 0) values.write(source, out) else values.writeDefault(i, out)
  }

  override def stateBytes: Long = if (skipsNulls) nonNull.bytes else 0L
  override def stateBytesPerRow: Long = if (skipsNulls) 4L else 0L
}
