package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{AggregateWindowFunction, Expression}
import org.apache.spark.sql.types.DataType

import fastwindow.model.{FrameShape, FunctionSpec, StreamBounds}

/**
 * A window function Spark evaluates row by row over the running ROWS frame (see
 * [[RowByRowFamily]]).
 */
final case class RowByRowSpec(ordinal: Int, function: AggregateWindowFunction)
  extends FunctionSpec {
  override def resultType: DataType = function.dataType
  override def inputs: Seq[Expression] = function.children.filterNot(_.foldable)
  override def needsPeers: Boolean = false
  override def streamBounds: Option[StreamBounds] = FrameShape.RunningRows.aggregateStreamBounds
  override def readsRowsOnWrite: Boolean = true
  override def describe: String = s"${function.prettyName} over ${FrameShape.RunningRows.sql}"
}
