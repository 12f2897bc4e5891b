package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.{GeographyVal, GeometryVal}

/** Spark 4.1: rows also have geospatial values (abstract getters in this line only). */
trait NewerTypeGetters extends InternalRow {
  protected def obj[T](ordinal: Int): T

  override def getGeography(ordinal: Int): GeographyVal = obj(ordinal)
  override def getGeometry(ordinal: Int): GeometryVal = obj(ordinal)
}
