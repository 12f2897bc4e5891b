package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.{ArrayType, DataType, DoubleType}

import fastwindow.model.{BufferedFrameFunction, FrameShape}

/**
 * An exact percentile over a frame: `percentile`, `median` and `percentile_cont` (all Spark's
 * `Percentile` once analyzed) and `percentile_disc`.
 *
 * @param value       the values, nulled where a FILTER excludes the row
 * @param weight      the constant frequency (1 unless given)
 * @param percentages the constant percentage(s), each in [0, 1] (Spark's analyzer checks them)
 * @param asArray     whether the result is an array, one per percentage
 */
final case class PercentileSpec(
    ordinal: Int,
    name: String,
    value: Expression,
    weight: Long,
    percentages: Seq[Double],
    asArray: Boolean,
    lerpFromLower: Boolean,
    discrete: Boolean,
    legacyDiscrete: Boolean,
    reverse: Boolean,
    frame: FrameShape)
  extends BufferedFrameFunction {
  override def resultType: DataType = if (asArray) ArrayType(DoubleType, false) else DoubleType
}
