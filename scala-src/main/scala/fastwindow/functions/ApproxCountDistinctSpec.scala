package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.{DataType, LongType}

import fastwindow.model.{BufferedFrameFunction, FrameShape}

/**
 * `approx_count_distinct` over a frame, as [[ApproxCountDistinctFamily]] plans it.
 *
 * @param value      the values, null where a FILTER leaves the row out
 * @param relativeSD the sketch's relative standard deviation (Spark's second argument)
 */
final case class ApproxCountDistinctSpec(
    ordinal: Int,
    value: Expression,
    relativeSD: Double,
    frame: FrameShape)
  extends BufferedFrameFunction {
  override def resultType: DataType = LongType
  override def name: String = "approx_count_distinct"
}
