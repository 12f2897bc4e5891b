package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate
import org.apache.spark.sql.types.{DataType, StructType}

import fastwindow.frames.FrameLocator
import fastwindow.ops.ValueOps

/**
 * A Spark aggregate whose result depends on the order its values come in (`collect_set`'s
 * element order, `histogram_numeric`'s bins), evaluated by Spark's own code exactly as Spark's
 * window frames do: the frame's rows go into a fresh buffer in order, and while a frame only
 * grows at its end (running and whole frames) the same buffer takes the new rows. So each
 * result is Spark's, at Spark's cost (O(w) per row for moving frames); what fastwindow adds is
 * that the other functions of the window run on it.
 *
 * @param input     per row, a struct of the aggregate's inputs, null where a FILTER leaves the
 *                  row out
 * @param aggregate Spark's aggregate, reading its inputs from that struct (slot 0 of its input
 *                  row); its `eval` must not change its buffer
 */
final class ReplayedAggregateKernel(
    frame: FrameLocator,
    input: ValueOps,
    inputType: StructType,
    aggregate: TypedImperativeAggregate[Any],
    resultType: DataType,
    ordinal: Int)
  extends Kernel {

  private val row = new SpecificInternalRow(Seq(inputType))
  private val writeResult = new ValueWriter(ordinal, resultType)
  private var buffer: Any = null

  /** Rows `[lo, hi)` are in `buffer`; `result` is its value unless `stale`. */
  private var lo = 0
  private var hi = 0
  private var result: Any = null
  private var stale = true

  override def startPartition(): Unit = {
    frame.reset()
    buffer = null
  }

  override def write(i: Int, n: Int, out: InternalRow): Unit = {
    frame.locate(i, n)
    val end = math.max(frame.last + 1, frame.first)
    if (buffer == null || frame.first != lo || end < hi) {
      buffer = aggregate.createAggregationBuffer()
      lo = frame.first
      hi = lo
      stale = true
    }
    while (hi < end) {
      if (!input.isNull(hi)) {
        input.write(hi, row)
        buffer = aggregate.update(buffer, row)
      }
      hi += 1
      stale = true
    }
    if (stale) {
      result = aggregate.eval(buffer)
      stale = false
    }
    writeResult(out, result)
  }

  override def shift(d: Int): Unit =
    throw new IllegalStateException("replayed aggregates are never streamed")
}
