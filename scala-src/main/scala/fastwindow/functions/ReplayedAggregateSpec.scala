package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.aggregate.TypedImperativeAggregate
import org.apache.spark.sql.types.DataType

import fastwindow.model.{BufferedFrameFunction, FrameShape}

/**
 * A Spark aggregate run by Spark's own code over each frame in order, as
 * [[ReplayedAggregateFamily]] plans it.
 *
 * @param value     a struct of the aggregate's non-constant inputs, null where a FILTER leaves
 *                  the row out
 * @param aggregate Spark's aggregate, its non-constant inputs read from that struct
 */
final case class ReplayedAggregateSpec(
    ordinal: Int,
    value: Expression,
    aggregate: TypedImperativeAggregate[_],
    frame: FrameShape)
  extends BufferedFrameFunction {
  override def resultType: DataType = aggregate.dataType
  override def name: String = aggregate.prettyName
}
