package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.{GeographyVal, GeometryVal, VariantVal}

/** Spark 4.1: rows also have variants and geospatial values (abstract getters in this line only). */
trait NewerTypeGetters extends InternalRow {
  protected def obj[T](ordinal: Int): T

  override def getVariant(ordinal: Int): VariantVal = obj(ordinal)
  override def getGeography(ordinal: Int): GeographyVal = obj(ordinal)
  override def getGeometry(ordinal: Int): GeometryVal = obj(ordinal)
}
