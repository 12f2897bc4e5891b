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
 * With more ORDER BY keys than one (a tie-break, or a second key), the first key must have no
 * ties within a range, since the blocks' order cannot say how tied rows compare on the rest.
 * The map tasks follow the runs ([[KeyRunTracker]]); the rows read are checked again as they
 * come ([[KeyRun.checked]]).
 */
object BlocksInOrder {

  /**
   * `sorted` (the operator's input: Spark's sort of the range shuffle below `shuffled`), with
   * each task whose ranges need no sort reading the shuffle's blocks in order instead, and how
   * many tasks do; `sorted` itself when none does (or the map tasks did not follow the runs).
   */
  def input(shuffled: SparkPlan, order: Seq[SortOrder],
      sorted: RDD[InternalRow]): (RDD[InternalRow], Int) =
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
        val strict = order.length > 1
        val tasks = reads.getOrElse((0 until numRanges).map(r => (r, r + 1)))
        val blocks = tasks.map { case (from, until) =>
          val perRange = (from until until).map(r => ofRange(r, byMap.map(_(r)), k, strict))
          if (perRange.contains(null)) null else perRange.flatten.toArray
        }.toArray
        val inOrder = blocks.count(_ != null)
        val rows =
          if (inOrder == 0 || blocks.length != sorted.getNumPartitions) sorted
          else new ShuffleBlocksInOrder(sorted, exchange, blocks, KeyRun.checked(_, k, strict))
        (rows, if (rows eq sorted) 0 else inOrder)
      }
    }.getOrElse((sorted, 0))

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
