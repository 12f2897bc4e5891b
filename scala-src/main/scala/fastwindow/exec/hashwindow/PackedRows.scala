package fastwindow.exec.hashwindow

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

/** Rows packed in one byte array (each its size, then its bytes) and read back in place. */
object PackedRows {

  def pack(rows: Iterator[UnsafeRow]): Array[Byte] = {
    val bytes = new java.io.ByteArrayOutputStream()
    val out = new java.io.DataOutputStream(bytes)
    val buffer = new Array[Byte](4096)
    rows.foreach { row =>
      out.writeInt(row.getSizeInBytes)
      row.writeToStream(out, buffer)
    }
    out.flush()
    bytes.toByteArray
  }

  def unpack(packed: Array[Byte]): Reader = new Reader(packed)

  /** The rows of `packed` in order, each pointing into it (valid as long as it is). */
  final class Reader(packed: Array[Byte]) {
    private var at = 0

    def hasNext: Boolean = at < packed.length

    /** The next row, of `fields` fields. */
    def next(fields: Int): UnsafeRow = {
      val size = ((packed(at) & 0xff) << 24) | ((packed(at + 1) & 0xff) << 16) |
        ((packed(at + 2) & 0xff) << 8) | (packed(at + 3) & 0xff)
      val row = new UnsafeRow(fields)
      row.pointTo(packed, Platform.BYTE_ARRAY_OFFSET + at + 4, size)
      at += 4 + size
      row
    }
  }
}
