package fastwindow.exec.acrosstasks

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SortOrder
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.fastwindow.ShuffleBlocksInOrder

import fastwindow.exec.shared.IntegralOrderKey

/**
 * The ranges of a window without PARTITION BY that need no sort: where each map task sent a
 * range its rows in the order of the first ORDER BY key, over spans of keys that do not overlap
 * (a table of time series written in time order, read a file per task), reading the range's
 * blocks one after the other, the map task with the lowest keys first, gives its rows sorted.
 * With more ORDER BY keys than one, the first key must have no ties within a range, since the
 * blocks' order cannot say how tied rows compare on the rest (with halo rows, the tie-break
 * orders ties after, see [[PeersInOrder]]).
 * The map tasks follow the runs ([[KeyRunTracker]]); the rows read are checked again as they
 * come ([[KeyRun.checked]]).
 */
object BlocksInOrder {

  /**
   * What a window's tasks read: `rows`, `sorted` (the operator's input: Spark's sort of the range
   * shuffle below `shuffled`) with each task whose ranges need no sort reading the shuffle's
   * blocks in order instead; `inOrder`, how many tasks do; `withoutTies`, by task, whether its
   * rows, read so, have no two equal first keys.
   */
  final case class Read(rows: RDD[InternalRow], inOrder: Int, withoutTies: Array[Boolean])

  /** Every task reading `sorted`. */
  def sortedOnly(sorted: RDD[InternalRow]): Read =
    Read(sorted, 0, Array.fill(sorted.getNumPartitions)(false))

  /** The [[Read]] of each task (`sortedOnly` when none can read in order). */
  def input(shuffled: SparkPlan, order: Seq[SortOrder], sorted: RDD[InternalRow]): Read = {
    val unchanged = sortedOnly(sorted)
    RangeSplitExec.below(shuffled).flatMap { case (exchange, split, reads) =>
      val numRanges = split.bounds.numRanges
      val key = split.shape.runKey
        .filter(_ => split.shape.order.headOption.exists(o => order.head.semanticEquals(o)))
      for {
        k <- key
        (summaries, numMaps) <- split.mapSummaries
        if summaries.value.size == numMaps && split.bounds.numSlots == numRanges
      } yield {
        val byMap = (0 until numMaps).map(m => summaries.value.get(m))
        val tasks = reads.getOrElse((0 until numRanges).map(r => (r, r + 1)))
        def blocksOf(from: Int, until: Int, strict: Boolean): Array[(Int, Int)] = {
          val perRange = (from until until).map(r => ofRange(r, byMap.map(_(r)), k, strict))
          if (perRange.contains(null)) null else perRange.flatten.toArray
        }
        // Without ties where the map tasks saw none; with them where one key orders the rows.
        val (blocks, withoutTies) = tasks.map { case (from, until) =>
          val strict = blocksOf(from, until, strict = true)
          if (strict != null || order.length > 1) (strict, strict != null)
          else (blocksOf(from, until, strict = false), false)
        }.toArray.unzip
        val inOrder = blocks.count(_ != null)
        if (inOrder == 0 || blocks.length != sorted.getNumPartitions) unchanged
        else {
          Read(new ShuffleBlocksInOrder(sorted, exchange, blocks,
              (task, rows) => KeyRun.checked(rows, k, withoutTies(task))), inOrder, withoutTies)
        }
      }
    }.getOrElse(unchanged)
  }

  /**
   * The blocks (range, map index) of `range` in the order that gives its rows sorted, from the
   * runs of its map tasks' rows (`byMap`, null where a map task sent it none); null when no
   * order of them does.
   */
  def ofRange(range: Int, byMap: Seq[RangeSummary], key: IntegralOrderKey,
      strict: Boolean): Seq[(Int, Int)] = {
    val runs = byMap.zipWithIndex.collect { case (s, m) if s != null && s.rows > 0 => (s.run, m) }
    if (runs.exists { case (run, _) => run == null || !run.ordered || (strict && !run.strict) }) {
      return null
    }
    // By first key, then last: a block of one tied key goes before one that starts with it.
    val byLow = runs.sortWith { case ((a, _), (b, _)) =>
      val c = key.compare(a.lowNull, a.low, b.lowNull, b.low)
      c < 0 || (c == 0 && key.compare(a.highNull, a.high, b.highNull, b.high) < 0)
    }
    val meet = byLow.zip(byLow.drop(1)).forall { case ((a, _), (b, _)) =>
      val c = key.compare(a.highNull, a.high, b.lowNull, b.low)
      c < 0 || (c == 0 && !strict)
    }
    if (meet) byLow.map { case (_, m) => (range, m) }
    else null
  }
}
