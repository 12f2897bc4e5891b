package org.apache.spark.sql.fastwindow

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.fastwindow.shims.RowArrayShim
import org.apache.spark.sql.internal.SQLConf

/**
 * The input rows of the current window partition, held in Spark's own
 * `ExternalAppendOnlyUnsafeRowArray` with the same thresholds `WindowExec` uses: rows stay in
 * memory up to `spark.sql.windowExec.buffer.in.memory.threshold`, then move to a sorter whose pages
 * are accounted to the task's memory manager and spill to disk past
 * `spark.sql.windowExec.buffer.spill.threshold` (or its size threshold). A partition therefore
 * fits wherever it fits for Spark.
 *
 * It lives in Spark's package because the array is `private[sql]`.
 */
final class PartitionRowBuffer(thresholds: PartitionRowBuffer.Thresholds) {
  private val rows = RowArrayShim.newRowArray(
    thresholds.inMemoryRows, thresholds.spillRows, thresholds.spillBytes)

  /** Appends a copy of `row`. */
  def add(row: UnsafeRow): Unit = rows.add(row)

  def length: Int = rows.length.toInt

  /** Rows in insertion order; valid until the next `clear`. */
  def iterator: Iterator[UnsafeRow] = rows.generateIterator()

  /** Releases the rows (and any spill files) of the current partition. */
  def clear(): Unit = rows.clear()

  /** Bytes spilled so far by this buffer. */
  def spillSize: Long = rows.spillSize
}

object PartitionRowBuffer {

  /** WindowExec's buffer thresholds, read on the driver (SQLConf does not travel to tasks). */
  final case class Thresholds(inMemoryRows: Int, spillRows: Int, spillBytes: Option[Long])

  def thresholds(conf: SQLConf): Thresholds = Thresholds(
    conf.windowExecBufferInMemoryThreshold,
    conf.windowExecBufferSpillThreshold,
    RowArrayShim.spillSizeThreshold(conf))
}
