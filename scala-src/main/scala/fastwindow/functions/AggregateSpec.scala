package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.types.DataType

import fastwindow.model.{BesideComet, FrameShape, FunctionSpec, StreamBounds}

/**
 * A declarative aggregate over a frame. It is evaluated with the aggregate's own
 * initial/update/merge/evaluate expressions, so results, types, overflow behaviour and errors are
 * Spark's by construction.
 *
 * @param inSparkOrder a sliding frame folded in Spark's order, bit for bit, instead of by the two
 *                     stacks (floating-point aggregates with `spark.fastwindow.exactFloats`)
 */
final case class AggregateSpec(
    ordinal: Int,
    function: DeclarativeAggregate,
    frame: FrameShape,
    inSparkOrder: Boolean = false)
  extends FunctionSpec {
  override def resultType: DataType = function.dataType
  override def needsPeers: Boolean = frame.needsPeers
  override def inputs: Seq[Expression] =
    function.children.filterNot(_.foldable) ++ frame.rangeKeyInput
  override def readsRowsOnWrite: Boolean = frame != FrameShape.WholePartition
  override def resultPerPartition: Boolean = frame == FrameShape.WholePartition
  override def streamBounds: Option[StreamBounds] = frame match {
    // The two stacks fold a guarded frame from the partition start in Spark's order near
    // overflow limits, which needs its rows.
    case FrameShape.SlidingRows(None, Some(_))
        if !inSparkOrder && SlidingGuard.isGuarded(function) =>
      None
    case other => other.aggregateStreamBounds
  }
  override def seededStreamBounds: Option[StreamBounds] = frame.seededStreamBounds(streamBounds)
  override def describe: String = s"${function.prettyName} over ${frame.sql}"
  override def besideComet: BesideComet = CometAggregates.of(function, frame)
}
