package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow

import fastwindow.codegen.GenContext
import fastwindow.planning.RankingSpec
import fastwindow.planning.RankingKind._

/**
 * row_number, rank, dense_rank, percent_rank, cume_dist and ntile: O(1) per row from the row's
 * position, its peer group ([[PartitionCursor]]) and the partition size (which only the last
 * three need, so they run on buffered partitions, where the base is 0).
 *
 * The formulas follow Spark's definitions operation for operation, so the doubles are bit-equal:
 * percent_rank = (rank - 1) / (n - 1) (0 for a one-row partition), cume_dist = (rows up to the last
 * peer) / n, and ntile spreads n % buckets extra rows over the first buckets with the same
 * threshold walk as Spark's NTile.
 */
object RankingKernel {

  final class Interpreted(spec: RankingSpec, cursor: PartitionCursor) extends Kernel {
    private val ordinal = spec.ordinal
    private val ntile = new NTileState

    override def finishPartition(n: Int): Unit = spec.kind match {
      case NTile(buckets) => ntile.reset(n, buckets)
      case _ =>
    }

    // Partition positions are cursor.base + buffered row (base is 0 unless streaming).
    override def write(i: Int, n: Int, out: InternalRow): Unit = spec.kind match {
      case RowNumber => out.setInt(ordinal, cursor.base + i + 1)
      case Rank => out.setInt(ordinal, cursor.base + cursor.start + 1)
      case DenseRank => out.setInt(ordinal, cursor.index)
      case PercentRank =>
        out.setDouble(ordinal, if (n > 1) cursor.start.toDouble / (n - 1).toDouble else 0.0)
      case CumeDist => out.setDouble(ordinal, cursor.end.toDouble / n.toDouble)
      case NTile(_) => out.setInt(ordinal, ntile.next())
    }
  }

  /** Spark's NTile buffer: the bucket advances when the row number reaches the threshold. */
  final class NTileState {
    private var rowNumber = 0
    private var bucket = 0
    private var threshold = 0
    private var bucketSize = 0
    private var bucketsWithPadding = 0

    def reset(n: Int, buckets: Int): Unit = {
      rowNumber = 0
      bucket = 0
      threshold = 0
      bucketSize = n / buckets
      bucketsWithPadding = n % buckets
    }

    def next(): Int = {
      if (rowNumber >= threshold) {
        threshold += bucketSize + (if (bucket < bucketsWithPadding) 1 else 0)
        bucket += 1
      }
      rowNumber += 1
      bucket
    }
  }

  def generate(spec: RankingSpec, g: GenContext): KernelCode = {
    val set = (value: String) => g.setResult(spec.ordinal, spec.resultType, value)
    spec.kind match {
      case RowNumber => KernelCode("", set(s"${g.base} + i + 1"))
      case Rank => KernelCode("", set(s"${g.base} + ${g.peerStart} + 1"))
      case DenseRank => KernelCode("", set(g.peerIndex))
      case PercentRank =>
        KernelCode("", set(s"n > 1 ? ((double) ${g.peerStart}) / ((double) (n - 1)) : 0.0"))
      case CumeDist => KernelCode("", set(s"((double) ${g.peerEnd}) / ((double) n)"))
      case NTile(buckets) =>
        val Seq(rowNumber, bucket, threshold, size, padding) =
          Seq("ntRowNumber", "ntBucket", "ntThreshold", "ntBucketSize", "ntPadding")
            .map(g.intField)
        KernelCode(
          s"""
             |$rowNumber = 0; $bucket = 0; $threshold = 0;
             |$size = n / $buckets; $padding = n % $buckets;
           """.stripMargin,
          s"""
             |if ($rowNumber >= $threshold) {
             |  $threshold += $size + ($bucket < $padding ? 1 : 0);
             |  $bucket++;
             |}
             |$rowNumber++;
             |${set(bucket)}
           """.stripMargin)
    }
  }

}
