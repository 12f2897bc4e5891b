package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types.DataType

import fastwindow.frames.FrameLocator
import fastwindow.ops.ValueOps

/**
 * `collect_list` (`array_agg`) over any frame: the frame's values in row order, as Spark's list
 * holds them (nulls left out unless `keepNulls`, Spark 4.3's RESPECT NULLS). The result has one
 * element per frame row, so writing it is O(w) per row, as in Spark; fastwindow reads the values
 * from its columns instead of re-running Spark's aggregate over buffered rows for every frame.
 *
 * @param input the value of each row, null where a FILTER leaves the row out
 */
final class CollectListKernel(
    frame: FrameLocator,
    input: ValueOps,
    elementType: DataType,
    keepNulls: Boolean,
    ordinal: Int)
  extends Kernel {

  private val scratch = new SpecificInternalRow(Seq(elementType))
  private var elements = new Array[Any](16)

  override def startPartition(): Unit = frame.reset()

  override def write(i: Int, n: Int, out: InternalRow): Unit = {
    frame.locate(i, n)
    val (first, last) = (frame.first, frame.last)
    if (elements.length < last - first + 1) elements = new Array[Any](last - first + 1)
    var k = 0
    var r = first
    while (r <= last) {
      input.write(r, scratch)
      if (!scratch.isNullAt(0)) {
        elements(k) = InternalRow.copyValue(scratch.get(0, elementType))
        k += 1
      } else if (keepNulls) {
        elements(k) = null
        k += 1
      }
      r += 1
    }
    out.update(ordinal, new GenericArrayData(elements.slice(0, k)))
  }

  override def shift(d: Int): Unit =
    throw new IllegalStateException("collected lists are never streamed")
}
