package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.types.DataType

import fastwindow.frames.PeerGroups
import fastwindow.kernels.{Kernel, RankingKernel}
import fastwindow.model.{FallbackReason, FunctionSpec, RankingKind, StreamBounds}
import fastwindow.ops.FunctionOps

final case class RankingSpec(ordinal: Int, kind: RankingKind, resultType: DataType)
  extends FunctionSpec {
  override def needsPeers: Boolean = kind.needsPeers
  override def inputs: Seq[Expression] = Nil
  override def streamBounds: Option[StreamBounds] =
    if (kind.needsPartitionSize) None else Some(StreamBounds.Immediate)
  override def readsRowsOnWrite: Boolean = needsPeers
  override def describe: String = kind.sql
}

/** row_number, rank, dense_rank, percent_rank, cume_dist, ntile: see [[RankingKernel]]. */
object RankingFamily extends FunctionFamily[RankingSpec] {

  override def kind: String = "ranking"
  override def sqlNames: Seq[String] = RankingKind.all.map(_.sql)

  override def plan(
      function: Expression,
      frame: SpecifiedWindowFrame,
      orderSpec: Seq[SortOrder],
      ordinal: Int): Option[Either[FallbackReason, RankingSpec]] = {
    def spec(kind: RankingKind) = Some(Right(RankingSpec(ordinal, kind, function.dataType)))
    function match {
      case _: RowNumber => spec(RankingKind.RowNumber)
      case _: Rank => spec(RankingKind.Rank)
      case _: DenseRank => spec(RankingKind.DenseRank)
      case _: PercentRank => spec(RankingKind.PercentRank)
      case _: CumeDist => spec(RankingKind.CumeDist)
      case n: NTile => n.buckets.eval() match {
        case b: Int if b > 0 => spec(RankingKind.NTile(b))
        case other => Some(Left(FallbackReason(FallbackReason.UnsupportedArgument,
          s"ntile with buckets $other is not supported")))
      }
      case _ => None
    }
  }

  override def kernel(spec: RankingSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    RankingKernel(spec.kind, spec.ordinal, peers)

  override def supportEntries: Seq[SupportEntry] = RankingKind.all.map { k =>
    val inputs = if (k.needsPeers) s"ORDER BY keys of type: ${TypeSet.peerKey.description}"
      else "none"
    SupportEntry(k.sql, kind, Seq(WindowSupport.OwnFrame), inputs)
  }
}
