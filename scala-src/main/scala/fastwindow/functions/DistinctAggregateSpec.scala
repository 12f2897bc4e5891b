package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.types.{DataType, IntegerType}

import fastwindow.model.{BufferedFrameFunction, FrameShape}

/**
 * A count of a frame's distinct values, or an aggregate folded over them ([[DistinctAggregateOf]]),
 * as [[DistinctAggregateFamily]] plans it.
 *
 * @param key  null for rows the set leaves out, else a struct of the value (so that a null value
 *             the set takes is a non-null key), floating values normalized
 * @param fold None for the count, else the aggregate folded over the values (its buffer is their
 *             sum and count)
 */
final case class DistinctAggregateSpec(
    ordinal: Int,
    key: Expression,
    fold: Option[DeclarativeAggregate],
    frame: FrameShape)
  extends BufferedFrameFunction {
  override def resultType: DataType = fold.fold[DataType](IntegerType)(_.dataType)
  override def value: Expression = key
  override def name: String =
    fold.fold("size(collect_set(...))")(f => s"${f.prettyName}(DISTINCT ...)")
}
