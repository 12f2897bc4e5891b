package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.aggregate.ApproximatePercentile
import org.apache.spark.sql.types.DataType

import fastwindow.model.{BufferedFrameFunction, FrameShape}

/**
 * `percentile_approx` / `approx_percentile` over a frame, as [[ApproxPercentileFamily]] plans it.
 *
 * @param value       the values, null where a FILTER leaves the row out
 * @param percentages the constant percentage(s)
 * @param scalar      Spark's aggregate with one percentage (its `eval` converts a result)
 */
final case class ApproxPercentileSpec(
    ordinal: Int,
    value: Expression,
    percentages: Seq[Double],
    accuracy: Long,
    scalar: ApproximatePercentile,
    asArray: Boolean,
    resultType: DataType,
    frame: FrameShape)
  extends BufferedFrameFunction {
  override def name: String = "percentile_approx"
}
