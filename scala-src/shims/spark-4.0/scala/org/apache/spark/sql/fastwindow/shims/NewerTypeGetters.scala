package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.VariantVal

/** Spark 4.0: rows also have variants. */
trait NewerTypeGetters extends InternalRow {
  protected def obj[T](ordinal: Int): T

  override def getVariant(ordinal: Int): VariantVal = obj(ordinal)
}
