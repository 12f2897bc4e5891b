package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.execution.ExternalAppendOnlyUnsafeRowArray
import org.apache.spark.sql.internal.SQLConf

/** Spark 3.5 and 4.0: the window buffer has row-count thresholds only (no size threshold). */
object RowArrayShim {
  /** None: this Spark has no `spark.sql.windowExecBufferSpillSizeThreshold`. */
  def spillSizeThreshold(conf: SQLConf): Option[Long] = None

  def newRowArray(inMemoryRows: Int, spillRows: Int, spillBytes: Option[Long])
      : ExternalAppendOnlyUnsafeRowArray =
    new ExternalAppendOnlyUnsafeRowArray(inMemoryRows, spillRows)
}
