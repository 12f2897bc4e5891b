package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.execution.ExternalAppendOnlyUnsafeRowArray
import org.apache.spark.sql.internal.SQLConf

/** Spark 4.1+: the window buffer spills by row count or by size, whichever comes first. */
object RowArrayShim {
  def spillSizeThreshold(conf: SQLConf): Option[Long] =
    Some(conf.windowExecBufferSpillSizeThreshold)

  def newRowArray(inMemoryRows: Int, spillRows: Int, spillBytes: Option[Long])
      : ExternalAppendOnlyUnsafeRowArray = {
    val bytes = spillBytes.getOrElse(Long.MaxValue)
    new ExternalAppendOnlyUnsafeRowArray(inMemoryRows, bytes, spillRows, bytes)
  }
}
