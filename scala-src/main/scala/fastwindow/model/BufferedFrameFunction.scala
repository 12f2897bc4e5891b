package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * A function of one value over a frame whose state spans the whole partition (value ranks, value
 * ids, the rows themselves), so its partition is buffered and writing a result reads the columns.
 */
trait BufferedFrameFunction extends FunctionSpec {
  def frame: FrameShape

  /** The value read per row (a constant needs no column). */
  def value: Expression

  /** How reasons and reports name the function, before its frame. */
  def name: String
  override def describe: String = s"$name over ${frame.sql}"
  override def needsPeers: Boolean = frame.needsPeers
  override def inputs: Seq[Expression] = Seq(value).filterNot(_.foldable) ++ frame.rangeKeyInput
  override def streamBounds: Option[StreamBounds] = None
  override def readsRowsOnWrite: Boolean = true
}
