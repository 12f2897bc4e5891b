package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}

import fastwindow.frames.{PeerGroups, RankLimit}
import fastwindow.kernels.{Kernel, RankingKernel}
import fastwindow.model.{AcrossTasksRole, FallbackReason, RankingKind}
import fastwindow.ops.FunctionOps

/** row_number, rank, dense_rank, percent_rank, cume_dist, ntile: see [[RankingKernel]]. */
object RankingFamily extends FunctionFamily[RankingSpec]("ranking") {

  override def sqlNames: Seq[String] = RankingKind.all.map(_.sql)

  override def plan(call: WindowCall): Planned =
    kindOf(call.function).map(_.map(RankingSpec(call.ordinal, _, call.function.dataType)))

  /** The ranking kind of a window function, if it is one: ntile with its constant bucket count,
   * or the reason fastwindow does not take that count. */
  def kindOf(function: Expression): Option[Either[FallbackReason, RankingKind]] = function match {
    case _: RowNumber => Some(Right(RankingKind.RowNumber))
    case _: Rank => Some(Right(RankingKind.Rank))
    case _: DenseRank => Some(Right(RankingKind.DenseRank))
    case _: PercentRank => Some(Right(RankingKind.PercentRank))
    case _: CumeDist => Some(Right(RankingKind.CumeDist))
    case n: NTile => Some(n.buckets.eval() match {
        case b: Int if b > 0 => Right(RankingKind.NTile(b))
        case other => Left(FallbackReason(FallbackReason.UnsupportedArgument,
              s"ntile with buckets $other is not supported"))
      })
    case _ => None
  }

  /**
   * Which rows a filter `function <= k` keeps of each group, for the kinds that fastwindow's top-k
   * per group ([[fastwindow.planning.GroupLimitSupport]]) runs: those Spark infers a group limit
   * for. Every kind answers here (no default), so a new kind must say.
   */
  def groupLimit(kind: RankingKind): Option[RankLimit] = kind match {
    case RankingKind.RowNumber => Some(RankLimit.RowNumber)
    case RankingKind.Rank => Some(RankLimit.Rank)
    case RankingKind.DenseRank => Some(RankLimit.DenseRank)
    case RankingKind.PercentRank | RankingKind.CumeDist | RankingKind.NTile(_) => None
  }

  override def kernel(spec: RankingSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    RankingKernel(spec.kind, spec.ordinal, peers)

  // row_number, rank: the rows before; dense_rank: the peer groups before; percent_rank,
  // cume_dist, ntile: + the window's size.
  override def acrossTasks(spec: RankingSpec, exactFloats: Boolean,
      maxHaloRows: Int): AcrossTasksRole = AcrossTasksRole.PrefixState

  override def supportEntries: Seq[SupportEntry] = RankingKind.all.map { k =>
    val inputs = if (k.needsPeers) s"ORDER BY keys of type: ${TypeSet.peerKey.description}"
    else "none"
    SupportEntry(k.sql, kind, Seq(WindowSupport.OwnFrame), inputs)
  }
}
