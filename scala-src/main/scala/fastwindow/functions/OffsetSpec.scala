package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.DataType

import fastwindow.model.{BesideComet, FunctionSpec, StreamBounds}

/**
 * lead/lag: the value of `input` `offset` rows away (lag has a negative offset), or — with
 * IGNORE NULLS — the |offset|-th non-null value after (before) the current row. When that row
 * does not exist the result is `default` evaluated on the current row (`None` means null).
 */
final case class OffsetSpec(
    ordinal: Int,
    name: String,
    input: Expression,
    offset: Int,
    default: Option[Expression],
    ignoreNulls: Boolean)
  extends FunctionSpec {
  override def resultType: DataType = input.dataType
  override def needsPeers: Boolean = false
  override def inputs: Seq[Expression] = (input +: default.toSeq).filterNot(_.foldable)

  /** IGNORE NULLS may look arbitrarily far for the |offset|-th non-null value. */
  override def streamBounds: Option[StreamBounds] =
    if (ignoreNulls && offset != 0) None else Some(StreamBounds.ofOffsets(offset, offset))
  override def readsRowsOnWrite: Boolean = true
  override def describe: String = name

  /**
   * Comet's lead and lag take a constant default; fastwindow was measured faster there, and with
   * IGNORE NULLS also without PARTITION BY, against Comet's one task.
   */
  override def besideComet: BesideComet =
    if (default.exists(!_.foldable)) {
      BesideComet.NotNative(s"Comet's $name takes only a constant default")
    } else if (ignoreNulls) {
      BesideComet.FastwindowFaster(
        s"$name IGNORE NULLS measured faster on fastwindow than on Comet",
        overOneTask = true)
    } else BesideComet.FastwindowFaster(s"$name measured faster on fastwindow than on Comet")
}
