package fastwindow.exec.window

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}

/**
 * Reads one task's sorted input as window partitions. Rows become UnsafeRows (most already are);
 * a row whose PARTITION BY key differs from the current partition's ([[PartitionKey]]) ends it
 * and stays held as the next partition's first row.
 *
 * A returned row is valid until the next read: producers reuse their rows.
 */
final class PartitionReader(
    input: Iterator[InternalRow],
    toUnsafe: UnsafeProjection,
    key: PartitionKey) {

  /** The next input row, read but not returned yet. */
  private var held: UnsafeRow = _

  /** Whether the input has another row (in this partition or a later one). */
  def hasRow: Boolean = held != null || fetch()

  /** Makes the next row's partition the current one; call only when `hasRow`. */
  def startPartition(): Unit = {
    hasRow
    key.start(held)
  }

  /** The current partition's next row, or null when it has no more. */
  def nextInPartition(): UnsafeRow =
    if (!hasRow || !key.sameAsCurrent(held)) null
    else {
      val row = held
      held = null
      row
    }

  /** The current partition's rows not read yet (for a partition handed to Spark). */
  def restOfPartition: Iterator[UnsafeRow] = new Iterator[UnsafeRow] {
    private var row: UnsafeRow = _
    override def hasNext: Boolean = {
      if (row == null) row = nextInPartition()
      row != null
    }
    override def next(): UnsafeRow = {
      hasNext
      val r = row
      row = null
      r
    }
  }

  private def fetch(): Boolean = input.hasNext && {
    held = input.next() match {
      case u: UnsafeRow => u
      case other => toUnsafe(other)
    }
    true
  }
}
