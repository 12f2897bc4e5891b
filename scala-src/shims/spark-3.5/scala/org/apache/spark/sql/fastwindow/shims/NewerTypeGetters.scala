package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.catalyst.InternalRow

/** Spark 3.5: no row getters beyond `InternalRow`'s own. */
trait NewerTypeGetters extends InternalRow {
  protected def obj[T](ordinal: Int): T
}
