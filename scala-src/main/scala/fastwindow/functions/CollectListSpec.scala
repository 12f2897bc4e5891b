package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.DataType

import fastwindow.model.{BufferedFrameFunction, FrameShape}

/**
 * `collect_list` or `array_agg` over a frame, as [[CollectListFamily]] plans it.
 *
 * @param value     the values, nulled where a FILTER leaves the row out
 * @param keepNulls Spark 4.3's `collect_list(x) RESPECT NULLS`
 */
final case class CollectListSpec(
    ordinal: Int,
    value: Expression,
    keepNulls: Boolean,
    resultType: DataType,
    frame: FrameShape)
  extends BufferedFrameFunction {
  override def name: String = "collect_list"
}
