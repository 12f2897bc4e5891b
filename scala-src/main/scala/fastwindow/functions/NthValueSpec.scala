package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Expression, NthValue}
import org.apache.spark.sql.types.DataType

import fastwindow.model.{BesideComet, FrameShape, FunctionSpec, StreamBounds}

/** nth_value(input, offset) [IGNORE NULLS] over a frame. */
final case class NthValueSpec(ordinal: Int, function: NthValue, frame: FrameShape)
  extends FunctionSpec {
  def offset: Int = function.offset.eval().asInstanceOf[Int]
  override def resultType: DataType = function.dataType
  override def needsPeers: Boolean = frame.needsPeers
  override def inputs: Seq[Expression] =
    Seq(function.input).filterNot(_.foldable) ++ frame.rangeKeyInput

  /** Over a sliding frame the row is found by position in a buffered partition (see [[NthRow]]). */
  override def streamBounds: Option[StreamBounds] =
    if (frame.isSliding) None else frame.aggregateStreamBounds
  override def seededStreamBounds: Option[StreamBounds] = frame.seededStreamBounds(streamBounds)
  override def readsRowsOnWrite: Boolean = frame != FrameShape.WholePartition
  override def resultPerPartition: Boolean = frame == FrameShape.WholePartition
  override def describe: String = s"nth_value over ${frame.sql}"
  override def besideComet: BesideComet = CometAggregates.ofValue(frame, "nth_value")
}
