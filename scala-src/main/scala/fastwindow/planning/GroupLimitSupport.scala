package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.{DenseRank, Expression, KnownFloatingPointNormalized, Rank, RowNumber}
import org.apache.spark.sql.fastwindow.shims.ClassicShim
import org.apache.spark.sql.types._

import fastwindow.frames.RankLimit
import fastwindow.model.FallbackReason

/**
 * Whether [[fastwindow.exec.HashGroupLimitExec]] can run a logical `WindowGroupLimit`: its
 * function must be row_number, rank or dense_rank (the ones Spark infers the limit for), and
 * every PARTITION BY key of a type whose equal values are equal bytes, since groups are found by
 * hashing the keys' bytes: floating keys Spark did not normalize, non-binary collations and
 * nested types stay on Spark's sort-based operator.
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
    val keys = partitionSpec.filterNot(hashable).map { k =>
      FallbackReason(FallbackReason.UnsupportedType,
        s"the group limit's PARTITION BY key ${k.sql} is of type ${k.dataType.catalogString}, " +
          "whose equal values can differ in bytes; the top-k per group is found by hashing keys")
    }
    if (keys.isEmpty) rank.left.map(Seq(_)) else Left(rank.left.toSeq ++ keys)
  }

  /**
   * Spark's optimizer normalizes floating PARTITION BY keys (-0.0 to 0.0, one NaN), after which
   * equal values are equal bytes.
   */
  private def hashable(key: Expression): Boolean = key match {
    case KnownFloatingPointNormalized(_) => key.dataType == FloatType || key.dataType == DoubleType
    case _ => hashable(key.dataType)
  }

  private def hashable(t: DataType): Boolean = t match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | DateType | TimestampType |
         TimestampNTZType | BinaryType | _: DecimalType | _: YearMonthIntervalType |
         _: DayTimeIntervalType => true
    case s: StringType => ClassicShim.isBinaryStable(s)
    case _ => false
  }
}
