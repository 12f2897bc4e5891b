package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SpecificInternalRow
import org.apache.spark.sql.catalyst.util.HyperLogLogPlusPlusHelper
import org.apache.spark.sql.types.{DataType, LongType}

import fastwindow.frames.{FrameLocator, RegisterMaxima}
import fastwindow.ops.ValueOps

/**
 * `approx_count_distinct(x)` over any frame whose edges only move forward (whole, running,
 * moving, shrinking, ROWS or RANGE), with Spark's own HyperLogLog++ (`sketch`), so every result
 * is exactly Spark's: a sketch's registers are the maxima of what its values give them, whatever
 * their order, and Spark's estimate reads only the registers.
 *
 * Each buffered value is hashed once, by Spark's own update on an empty sketch (which register it
 * sets, to what); the frame's registers are kept as [[RegisterMaxima]] as rows enter and leave,
 * and Spark's estimate is computed again only when a register changed. O(n m / 10 + c m) per
 * partition, m the registers (a probe reads the sketch's m / 10 words) and c the frames whose
 * registers changed; Spark updates a sketch with every row of each frame again (O(w) per row)
 * and estimates every frame.
 *
 * @param input the values, null where the sketch does not take the row (nulls, FILTER)
 */
final class ApproxCountDistinctKernel(
    frame: FrameLocator,
    input: ValueOps,
    inputType: DataType,
    sketch: HyperLogLogPlusPlusHelper,
    ordinal: Int)
  extends Kernel {
  import ApproxCountDistinctKernel._

  private val words = sketch.numWords
  private val scratch = new SpecificInternalRow(Seq(inputType))

  /** The frame's sketch, as Spark's buffer holds it. */
  private val registers = emptySketch(words)

  /** A sketch of one value, to see which register Spark's update sets. */
  private val probe = emptySketch(words)
  private val maxima = new RegisterMaxima(words * PerWord, RegisterMask.toInt)

  /** Per buffered row, `register << 8 | value` of its value, -1 where it has none. */
  private var pairs = new Array[Int](16)

  /** Rows `[lo, hi)` are in `maxima`; `estimate` is theirs unless `stale`. */
  private var lo = 0
  private var hi = 0
  private var estimate = 0L
  private var stale = true

  override def startPartition(): Unit = frame.reset()

  override def finishPartition(n: Int): Unit = {
    moveTo(hi, hi) // the previous partition's rows leave: every register back to 0
    lo = 0
    hi = 0
    if (pairs.length < n) pairs = new Array[Int](math.max(n, pairs.length * 2))
    var r = 0
    while (r < n) {
      input.write(r, scratch)
      pairs(r) = if (scratch.isNullAt(0)) -1 else pairOf(scratch.get(0, inputType))
      r += 1
    }
  }

  /** The register `value` sets and what to, from Spark's update of an empty sketch. */
  private def pairOf(value: Any): Int = {
    sketch.update(probe, 0, value.asInstanceOf[AnyRef], inputType)
    var w = 0
    while (probe.getLong(w) == 0L) w += 1
    val word = probe.getLong(w)
    probe.setLong(w, 0L)
    val slot = java.lang.Long.numberOfTrailingZeros(word) / Bits
    ((w * PerWord + slot) << 8) | ((word >>> (slot * Bits)) & RegisterMask).toInt
  }

  override def write(i: Int, n: Int, out: InternalRow): Unit = {
    frame.locate(i, n)
    moveTo(frame.first, math.max(frame.last + 1, frame.first))
    if (stale) {
      estimate = sketch.query(registers, 0)
      stale = false
    }
    out.setLong(ordinal, estimate)
  }

  /** Makes `maxima` hold rows `[first, end)`; both edges only move forward. */
  private def moveTo(first: Int, end: Int): Unit = {
    while (hi < end) {
      val pair = pairs(hi)
      if (pair >= 0 && maxima.add(pair >>> 8, pair & 0xff)) changed(pair >>> 8)
      hi += 1
    }
    while (lo < first) {
      val pair = pairs(lo)
      if (pair >= 0 && maxima.remove(pair >>> 8, pair & 0xff)) changed(pair >>> 8)
      lo += 1
    }
  }

  private def changed(register: Int): Unit = {
    val w = register / PerWord
    val shift = (register - w * PerWord) * Bits
    registers.setLong(w,
      (registers.getLong(w) & ~(RegisterMask << shift)) | (maxima(register).toLong << shift))
    stale = true
  }

  override def shift(d: Int): Unit =
    throw new IllegalStateException("approx_count_distinct is never streamed")
  override def stateBytes: Long = maxima.bytes + 4L * pairs.length
  override def stateBytesPerRow: Long = 4L
}

object ApproxCountDistinctKernel {
  private val PerWord = HyperLogLogPlusPlusHelper.REGISTERS_PER_WORD
  private val Bits = HyperLogLogPlusPlusHelper.REGISTER_SIZE
  private val RegisterMask = HyperLogLogPlusPlusHelper.REGISTER_WORD_MASK

  private def emptySketch(words: Int): SpecificInternalRow = {
    val row = new SpecificInternalRow(Seq.fill(words)(LongType))
    (0 until words).foreach(row.setLong(_, 0L))
    row
  }
}
