package fastwindow.model

/** The ranking functions; their values follow from row positions and peer groups only. */
sealed abstract class RankingKind(val sql: String, val needsPeers: Boolean,
    val needsPartitionSize: Boolean)
  extends Serializable

object RankingKind {
  case object RowNumber extends RankingKind("row_number", false, false)
  case object Rank extends RankingKind("rank", true, false)
  case object DenseRank extends RankingKind("dense_rank", true, false)
  case object PercentRank extends RankingKind("percent_rank", true, true)
  case object CumeDist extends RankingKind("cume_dist", true, true)
  final case class NTile(buckets: Int) extends RankingKind("ntile", false, true)

  val all: Seq[RankingKind] = Seq(RowNumber, Rank, DenseRank, PercentRank, CumeDist, NTile(1))
}
