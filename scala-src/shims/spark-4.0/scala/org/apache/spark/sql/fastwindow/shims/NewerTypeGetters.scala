package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.catalyst.InternalRow

/** Spark 4.0: no row getters beyond `InternalRow`'s own. */
trait NewerTypeGetters extends InternalRow {
  protected def obj[T](ordinal: Int): T
}
