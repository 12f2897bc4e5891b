package fastwindow.exec.acrosstasks

import org.apache.spark.SparkException
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

import fastwindow.exec.shared.IntegralOrderKey

/**
 * Whether the rows one map task sent to one range came in the order of the window's first ORDER
 * BY key (`ordered`; `strict`: with no two equal), and their first and last keys (null flag and
 * value, see [[IntegralOrderKey]]). Tables of time series are often written in time order: a
 * range whose map tasks each sent their rows in order, over spans of keys that do not overlap,
 * is already sorted when its blocks are read one after the other ([[BlocksInOrder]]).
 */
final case class KeyRun(ordered: Boolean, strict: Boolean, lowNull: Boolean, low: Long,
    highNull: Boolean, high: Long)

object KeyRun {
  val Unordered: KeyRun = KeyRun(ordered = false, strict = false, false, 0L, false, 0L)

  /**
   * `rows`, checked to come in `key`'s order (with no ties when `strict`) as they are read: a
   * range read block after block that is not sorted after all fails its task, since the rows
   * already returned may be wrong. The map tasks' runs say it is sorted; Spark's shuffle keeps
   * each block's rows in the order the map task wrote them.
   */
  def checked(rows: Iterator[InternalRow], key: IntegralOrderKey,
      strict: Boolean): Iterator[InternalRow] = {
    val tracker = new KeyRunTracker(key)
    rows.map { row =>
      tracker.offer(row.asInstanceOf[UnsafeRow])
      if (!tracker.inOrder(strict)) {
        throw SparkException.internalError("fastwindow: the rows of a range read from the map " +
          "tasks' blocks in order are out of order; the map side saw them in order")
      }
      row
    }
  }
}
