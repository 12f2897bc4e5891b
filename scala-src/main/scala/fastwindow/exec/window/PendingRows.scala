package fastwindow.exec.window

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.unsafe.Platform

/**
 * A FIFO of row copies that reuses its memory: a ring of UnsafeRows, each pointing into a byte
 * array of its own that is only reallocated when a longer row arrives; grows up to `limit` rows.
 * Its capacity is a power of two, so positions wrap with a mask.
 */
final class PendingRows(limit: Int) {
  private var rows = new Array[UnsafeRow](16)
  private var head = 0
  private var count = 0
  private var heldBytes = 0L

  def size: Int = count
  def isEmpty: Boolean = count == 0
  def isFull: Boolean = count >= limit

  /** Bytes held by the ring's rows (their arrays' capacity, which only grows). */
  def bytes: Long = heldBytes

  def add(row: UnsafeRow): Unit = {
    if (count == rows.length) grow()
    val slot = (head + count) & (rows.length - 1)
    val size = row.getSizeInBytes
    var copy = rows(slot)
    val held = if (copy == null) 0 else copy.getBaseObject.asInstanceOf[Array[Byte]].length
    // A zero-width row (no columns left after pruning) still needs a row object to return.
    if (copy == null || held < size) {
      val capacity = math.max(size, 64)
      copy = new UnsafeRow(row.numFields)
      copy.pointTo(new Array[Byte](capacity), size)
      rows(slot) = copy
      heldBytes += capacity - held
    }
    val target = copy.getBaseObject.asInstanceOf[Array[Byte]]
    row.getBaseObject match {
      // Most rows live in byte arrays; arraycopy skips copyMemory's costly argument checks.
      case bytes: Array[Byte] =>
        System.arraycopy(bytes, (row.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt, target,
          0, size)
      case base =>
        Platform.copyMemory(base, row.getBaseOffset, target, Platform.BYTE_ARRAY_OFFSET, size)
    }
    copy.setTotalSize(size)
    count += 1
  }

  def poll(): UnsafeRow = {
    val row = rows(head)
    head = (head + 1) & (rows.length - 1)
    count -= 1
    row
  }

  private def grow(): Unit = {
    val bigger = new Array[UnsafeRow](rows.length * 2)
    for (k <- 0 until count) bigger(k) = rows((head + k) & (rows.length - 1))
    rows = bigger
    head = 0
  }
}
