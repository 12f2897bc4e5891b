package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate
import org.apache.spark.sql.types.DataType

import fastwindow.model.{BufferedFrameFunction, FrameShape}

/**
 * A Spark aggregate run by Spark's own code over each frame in order, as
 * [[ReplayedAggregateFamily]] plans it.
 *
 * @param row       a struct of the aggregate's non-constant inputs, null where a FILTER leaves
 *                  the row out
 * @param aggregate Spark's aggregate, its non-constant inputs read from that struct
 */
final case class ReplayedAggregateSpec(
    ordinal: Int,
    row: Expression,
    aggregate: TypedImperativeAggregate[_],
    frame: FrameShape)
  extends BufferedFrameFunction {
  override def resultType: DataType = aggregate.dataType
  override def value: Expression = row
  override def describe: String = s"${aggregate.prettyName} over ${frame.sql}"
}
