package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.{BinaryView, VariantVal}

/** Spark 4.2: rows also have variants and binary views. */
trait NewerTypeGetters extends InternalRow {
  protected def obj[T](ordinal: Int): T

  override def getVariant(ordinal: Int): VariantVal = obj(ordinal)
  override def getBinaryView(ordinal: Int): BinaryView = obj(ordinal)
}
