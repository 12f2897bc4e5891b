package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow

import fastwindow.frames.PeerGroups
import fastwindow.model.RankingKind

/**
 * row_number, rank, dense_rank, percent_rank, cume_dist and ntile: O(1) per row from the row's
 * position, its peer group ([[PeerGroups]]) and the partition size (which only the last three
 * need, so they run on buffered partitions, or streamed over a range of a window spread over
 * tasks, whose seed gives the window's size).
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
            if (total > 1) {
              (peers.rowsBefore + peers.base + peers.start).toDouble / (total - 1).toDouble
            } else 0.0)
        }
      }
    case CumeDist => new Kernel {
        override def write(i: Int, n: Int, out: InternalRow): Unit =
          out.setDouble(ordinal,
            (peers.rowsBefore + peers.base + peers.end).toDouble / windowSize(n, peers).toDouble)
      }
    case NTile(buckets) => new NTileKernel(buckets, ordinal, peers)
  }

  private def windowSize(n: Int, peers: PeerGroups): Int =
    if (peers.windowRows > 0) peers.windowRows else n

  /**
   * Spark's NTile buffer: the bucket advances when the row number reaches the threshold. A range
   * of a window starts from the state the walk reaches after the rows before it, computed at
   * once: the first `total % buckets` buckets hold one row more than the others.
   */
  private final class NTileKernel(buckets: Int, ordinal: Int, peers: PeerGroups) extends Kernel {
    private var rowNumber = 0
    private var bucket = 0
    private var threshold = 0
    private var bucketSize = 0
    private var bucketsWithPadding = 0

    // A range of a window knows the window's size when it starts (and may stream); a partition
    // of its own only when it ends.
    override def startPartition(): Unit = if (peers.windowRows > 0) start(peers.windowRows)
    override def finishPartition(n: Int): Unit = if (peers.windowRows == 0) start(n)

    private def start(total: Int): Unit = {
      bucketSize = total / buckets
      bucketsWithPadding = total % buckets
      rowNumber = peers.rowsBefore
      bucket = if (rowNumber == 0) 0 else bucketOf(rowNumber - 1)
      threshold = rowsUpTo(bucket)
    }

    /** Rows in buckets 1 .. `k`. */
    private def rowsUpTo(k: Int): Int =
      if (k <= bucketsWithPadding) k * (bucketSize + 1)
      else bucketsWithPadding * (bucketSize + 1) + (k - bucketsWithPadding) * bucketSize

    /** The 1-based bucket of 0-based row `r`. */
    private def bucketOf(r: Int): Int = {
      val padded = rowsUpTo(bucketsWithPadding)
      if (r < padded) r / (bucketSize + 1) + 1
      else bucketsWithPadding + (r - padded) / bucketSize + 1
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
