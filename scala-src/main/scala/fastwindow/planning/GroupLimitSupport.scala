package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.Expression

import fastwindow.frames.RankLimit
import fastwindow.functions.RankingFamily
import fastwindow.model.{FallbackReason, RankingKind}

/**
 * Whether [[fastwindow.exec.grouplimit.HashGroupLimitExec]] can run a logical `WindowGroupLimit`: its
 * function must be one whose limit [[RankingFamily.groupLimit]] knows (row_number, rank and
 * dense_rank: those Spark infers a limit for), and every PARTITION BY key [[HashableKeys.hashable]]; other keys stay on Spark's sort-based
 * operator.
 */
object GroupLimitSupport {

  def check(partitionSpec: Seq[Expression], rankLikeFunction: Expression)
      : Either[Seq[FallbackReason], RankLimit] = {
    val rank: Either[FallbackReason, RankLimit] =
      RankingFamily.kindOf(rankLikeFunction).flatMap(_.toOption).flatMap(RankingFamily.groupLimit)
        .toRight(FallbackReason(
            FallbackReason.UnsupportedFunction,
            s"the group limit's function ${rankLikeFunction.prettyName} is not one of " +
              RankingKind.all.filter(RankingFamily.groupLimit(_).isDefined).map(_.sql).mkString(
                ", ")
          ))
    val keys = partitionSpec.filterNot(HashableKeys.hashable).map { k =>
      FallbackReason(
        FallbackReason.UnsupportedType,
        s"the group limit's PARTITION BY key ${k.sql} is of type ${k.dataType.catalogString}, " +
          "whose equal values can differ in bytes; the top-k per group is found by hashing keys"
      )
    }
    if (keys.isEmpty) rank.left.map(Seq(_)) else Left(rank.left.toSeq ++ keys)
  }
}
