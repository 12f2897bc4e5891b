package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow

import fastwindow.frames.PeerGroups
import fastwindow.model.RankingKind

/**
 * row_number, rank, dense_rank, percent_rank, cume_dist and ntile: O(1) per row from the row's
 * position, its peer group ([[PeerGroups]]) and the partition size (which only the last three
 * need, so they run on buffered partitions, where the base is 0).
 *
 * The formulas follow Spark's definitions operation for operation, so the doubles are bit-equal:
 * percent_rank = (rank - 1) / (n - 1) (0 for a one-row partition), cume_dist = (rows up to the last
 * peer) / n, and ntile spreads n % buckets extra rows over the first buckets with the same
 * threshold walk as Spark's NTile.
 */
object RankingKernel {
  import RankingKind._

  def apply(kind: RankingKind, ordinal: Int, peers: PeerGroups): Kernel = kind match {
    // Partition positions are peers.base + buffered row (base is 0 unless streaming), after the
    // rows and peer groups before the partition (rowsBefore, groupsBefore: 0 unless a range of a
    // window spread over tasks).
    case RowNumber => new Kernel {
        override def write(i: Int, n: Int, out: InternalRow): Unit =
          out.setInt(ordinal, peers.rowsBefore + peers.base + i + 1)
      }
    case Rank => new Kernel {
        override def write(i: Int, n: Int, out: InternalRow): Unit =
          out.setInt(ordinal, peers.rowsBefore + peers.base + peers.start + 1)
      }
    case DenseRank => new Kernel {
        override def write(i: Int, n: Int, out: InternalRow): Unit =
          out.setInt(ordinal, peers.groupsBefore + peers.index)
      }
    // The last three read the window's size: the partition's, or the whole window's when the
    // partition is a range of it (peers.windowRows), whose rows before it shift the positions.
    case PercentRank => new Kernel {
        override def write(i: Int, n: Int, out: InternalRow): Unit = {
          val total = windowSize(n, peers)
          out.setDouble(ordinal,
            if (total > 1) (peers.rowsBefore + peers.start).toDouble / (total - 1).toDouble
            else 0.0)
        }
      }
    case CumeDist => new Kernel {
        override def write(i: Int, n: Int, out: InternalRow): Unit =
          out.setDouble(ordinal,
            (peers.rowsBefore + peers.end).toDouble / windowSize(n, peers).toDouble)
      }
    case NTile(buckets) => new NTileKernel(buckets, ordinal, peers)
  }

  private def windowSize(n: Int, peers: PeerGroups): Int =
    if (peers.windowRows > 0) peers.windowRows else n

  /**
   * Spark's NTile buffer: the bucket advances when the row number reaches the threshold. A range
   * of a window walks the rows before it first (a loop of a few operations per row).
   */
  private final class NTileKernel(buckets: Int, ordinal: Int, peers: PeerGroups) extends Kernel {
    private var rowNumber = 0
    private var bucket = 0
    private var threshold = 0
    private var bucketSize = 0
    private var bucketsWithPadding = 0

    override def finishPartition(n: Int): Unit = {
      rowNumber = 0
      bucket = 0
      threshold = 0
      val total = windowSize(n, peers)
      bucketSize = total / buckets
      bucketsWithPadding = total % buckets
      while (rowNumber < peers.rowsBefore) next()
    }

    private def next(): Unit = {
      if (rowNumber >= threshold) {
        threshold += bucketSize + (if (bucket < bucketsWithPadding) 1 else 0)
        bucket += 1
      }
      rowNumber += 1
    }

    override def write(i: Int, n: Int, out: InternalRow): Unit = {
      next()
      out.setInt(ordinal, bucket)
    }
  }
}
