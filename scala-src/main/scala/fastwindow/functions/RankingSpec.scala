package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.DataType

import fastwindow.model.{BesideComet, FunctionSpec, RankingKind, StreamBounds}

/**
 * A ranking function (row_number, rank, dense_rank, percent_rank, cume_dist, ntile), as
 * [[RankingFamily]] plans it.
 */
final case class RankingSpec(ordinal: Int, kind: RankingKind, resultType: DataType)
  extends FunctionSpec {
  override def needsPeers: Boolean = kind.needsPeers
  override def inputs: Seq[Expression] = Nil
  override def streamBounds: Option[StreamBounds] =
    if (kind.needsPartitionSize) None else Some(StreamBounds.Immediate)
  // A seeded range knows the window's size before its first row: cume_dist waits for peers.
  override def seededStreamBounds: Option[StreamBounds] =
    Some(StreamBounds.Immediate.copy(waitsForPeers = kind == RankingKind.CumeDist))
  override def readsRowsOnWrite: Boolean = needsPeers
  override def describe: String = kind.sql

  /** Comet ranks natively, measured faster than fastwindow behind a columnar-to-row step. */
  override def besideComet: BesideComet = BesideComet.CometFaster
}
