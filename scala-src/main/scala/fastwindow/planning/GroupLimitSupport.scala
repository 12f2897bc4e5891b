package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.{DenseRank, Expression, Rank, RowNumber}

import fastwindow.frames.RankLimit
import fastwindow.model.FallbackReason

/**
 * Whether [[fastwindow.exec.grouplimit.HashGroupLimitExec]] can run a logical `WindowGroupLimit`: its
 * function must be row_number, rank or dense_rank (the ones Spark infers the limit for), and
 * every PARTITION BY key [[HashableKeys.hashable]]; other keys stay on Spark's sort-based
 * operator.
 */
object GroupLimitSupport {

  def check(partitionSpec: Seq[Expression], rankLikeFunction: Expression)
      : Either[Seq[FallbackReason], RankLimit] = {
    val rank: Either[FallbackReason, RankLimit] = rankLikeFunction match {
      case _: RowNumber => Right(RankLimit.RowNumber)
      case _: Rank => Right(RankLimit.Rank)
      case _: DenseRank => Right(RankLimit.DenseRank)
      case other => Left(FallbackReason(FallbackReason.UnsupportedFunction,
        s"the group limit's function ${other.prettyName} is not row_number, rank or dense_rank"))
    }
    val keys = partitionSpec.filterNot(HashableKeys.hashable).map { k =>
      FallbackReason(FallbackReason.UnsupportedType,
        s"the group limit's PARTITION BY key ${k.sql} is of type ${k.dataType.catalogString}, " +
          "whose equal values can differ in bytes; the top-k per group is found by hashing keys")
    }
    if (keys.isEmpty) rank.left.map(Seq(_)) else Left(rank.left.toSeq ++ keys)
  }
}
