package fastwindow.exec.window

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.types.DataType
import org.apache.spark.unsafe.Platform

/**
 * Appends a row of window results to a child row, giving the operator's output UnsafeRow: the
 * same bytes Spark's generated `UnsafeRowJoiner` writes (merged null bits, then both rows' fixed
 * slots, then both rows' variable-length data, with variable-length offsets moved accordingly).
 *
 * Why not that joiner: it copies each region with `Platform.copyMemory`, whose argument checks
 * cost more than copying the few dozen bytes of a typical window row, and it is called once per
 * output row. Rows that live in byte arrays (those of the cached scan, of shuffles and of
 * projections) are copied here with `System.arraycopy` instead; other rows (off-heap) still go
 * through `Platform.copyMemory`. Written by hand, it also needs no compilation.
 *
 * The returned row is reused by the next call.
 */
final class RowAppender(childTypes: Seq[DataType], resultTypes: Seq[DataType]) {
  import RowAppender._

  private val childFields = childTypes.size
  private val resultFields = resultTypes.size
  private val childBitsetBytes = UnsafeRow.calculateBitSetWidthInBytes(childFields)
  private val resultBitsetBytes = UnsafeRow.calculateBitSetWidthInBytes(resultFields)
  private val outBitsetBytes = UnsafeRow.calculateBitSetWidthInBytes(childFields + resultFields)
  private val childFixedBytes = 8 * childFields
  private val resultFixedBytes = 8 * resultFields

  /** Output positions of the variable-length slots whose offsets must move. */
  private val childVariableSlots = variableSlots(childTypes, outBitsetBytes)
  private val resultVariableSlots =
    variableSlots(resultTypes, outBitsetBytes + childFixedBytes)

  private var buf = new Array[Byte](64)
  private val out = new UnsafeRow(childFields + resultFields)

  def apply(child: UnsafeRow, results: UnsafeRow): UnsafeRow = {
    val childVariableBytes = child.getSizeInBytes - childBitsetBytes - childFixedBytes
    val resultVariableBytes = results.getSizeInBytes - resultBitsetBytes - resultFixedBytes
    val size = outBitsetBytes + childFixedBytes + resultFixedBytes + childVariableBytes +
      resultVariableBytes
    if (size > buf.length) buf = new Array[Byte](math.max(size, 2 * buf.length))

    mergeNullBits(child, results)
    var at = outBitsetBytes
    copy(child, childBitsetBytes, at, childFixedBytes)
    at += childFixedBytes
    copy(results, resultBitsetBytes, at, resultFixedBytes)
    at += resultFixedBytes
    copy(child, childBitsetBytes + childFixedBytes, at, childVariableBytes)
    at += childVariableBytes
    copy(results, resultBitsetBytes + resultFixedBytes, at, resultVariableBytes)

    // An offset is counted from the row's start; the data before it grew by these many bytes.
    moveOffsets(childVariableSlots, outBitsetBytes - childBitsetBytes + resultFixedBytes)
    moveOffsets(resultVariableSlots,
      outBitsetBytes - resultBitsetBytes + childFixedBytes + childVariableBytes)

    out.pointTo(buf, size)
    out
  }

  /** Output null bit k is the child's bit k, then bit `childFields + j` is the results' bit j. */
  private def mergeNullBits(child: UnsafeRow, results: UnsafeRow): Unit =
    if (outBitsetBytes == 8) {
      // Up to 64 fields in all, the usual case: one word, without the general loops.
      val childBits = if (childFields > 0) childWord(child, 0) else 0L
      val resultBits = if (resultFields > 0) resultWord(results, 0) << childFields else 0L
      putWord(0, childBits | resultBits)
    } else {
      mergeNullWords(child, results)
    }

  private def mergeNullWords(child: UnsafeRow, results: UnsafeRow): Unit = {
    var w = 0
    while (w < outBitsetBytes / 8) {
      putWord(w, if (8 * w < childBitsetBytes) childWord(child, w) else 0L)
      w += 1
    }
    val shift = childFields % 64
    var j = 0
    while (j < resultBitsetBytes / 8) {
      val bits = resultWord(results, j)
      val target = childFields / 64 + j
      putWord(target, getWord(target) | (bits << shift))
      if (shift > 0 && target + 1 < outBitsetBytes / 8) {
        putWord(target + 1, getWord(target + 1) | (bits >>> (64 - shift)))
      }
      j += 1
    }
  }

  private def childWord(child: UnsafeRow, w: Int): Long =
    Platform.getLong(child.getBaseObject, child.getBaseOffset + 8L * w)

  private def resultWord(results: UnsafeRow, w: Int): Long =
    Platform.getLong(results.getBaseObject, results.getBaseOffset + 8L * w)

  private def getWord(w: Int): Long = Platform.getLong(buf, Platform.BYTE_ARRAY_OFFSET + 8L * w)

  private def putWord(w: Int, bits: Long): Unit =
    Platform.putLong(buf, Platform.BYTE_ARRAY_OFFSET + 8L * w, bits)

  /** Copies `length` bytes from `from` bytes into `row` to `to` bytes into the output. */
  private def copy(row: UnsafeRow, from: Int, to: Int, length: Int): Unit =
    if (length > 0) row.getBaseObject match {
      case bytes: Array[Byte] =>
        System.arraycopy(bytes, (row.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt + from,
          buf, to, length)
      case base =>
        Platform.copyMemory(base, row.getBaseOffset + from, buf,
          Platform.BYTE_ARRAY_OFFSET + to, length)
    }

  /**
   * Adds `by` to the offset (upper 32 bits) of each slot at the given output positions. A null
   * field's slot holds 0 (a value's offset never is: its data follows the fixed slots) and is
   * left at 0, as Spark's joiner leaves it, so both give equal rows.
   */
  private def moveOffsets(slots: Array[Int], by: Int): Unit = {
    var k = 0
    while (k < slots.length) {
      val at = Platform.BYTE_ARRAY_OFFSET + slots(k)
      val slot = Platform.getLong(buf, at)
      if (slot != 0) Platform.putLong(buf, at, slot + (by.toLong << 32))
      k += 1
    }
  }
}

object RowAppender {

  /** Byte positions, in the output row, of the slots of the variable-length fields in `types`. */
  private def variableSlots(types: Seq[DataType], firstSlot: Int): Array[Int] =
    types.zipWithIndex.collect {
      case (t, i) if !UnsafeRow.isFixedLength(t) => firstSlot + 8 * i
    }.toArray
}
