package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.DataType

import fastwindow.model.{BufferedFrameFunction, FrameShape}

/**
 * `mode` over a frame, as [[ModeFamily]] plans it.
 *
 * @param key      null for rows the mode does not count (null values, rows a FILTER leaves out),
 *                 else a struct of the value
 * @param tieBreak how ties for the largest count are broken: `Some(highest)` by the values'
 *                 order (`mode(x, true)`, `WITHIN GROUP (ORDER BY x [DESC])`), None by Spark's
 *                 hash map (such partitions go to Spark)
 */
final case class ModeSpec(
    ordinal: Int,
    key: Expression,
    tieBreak: Option[Boolean],
    resultType: DataType,
    frame: FrameShape)
  extends BufferedFrameFunction {
  override def value: Expression = key
  override def name: String = "mode"
}
