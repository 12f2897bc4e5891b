package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.{BinaryView, TimestampNanosVal, VariantVal}

/** Spark 4.3+: rows also have variants, binary views and nanosecond timestamps. */
trait NewerTypeGetters extends InternalRow {
  protected def obj[T](ordinal: Int): T

  override def getVariant(ordinal: Int): VariantVal = obj(ordinal)
  override def getBinaryView(ordinal: Int): BinaryView = obj(ordinal)
  override def getTimestampLTZNanos(ordinal: Int): TimestampNanosVal = obj(ordinal)
  override def getTimestampNTZNanos(ordinal: Int): TimestampNanosVal = obj(ordinal)
}
