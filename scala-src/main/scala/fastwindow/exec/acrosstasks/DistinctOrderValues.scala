package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, Expression, SortOrder, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.execution.{ProjectExec, SortExec, SparkPlan}

/**
 * How many distinct ORDER BY values each task of a range shuffle holds: what dense_rank needs of
 * the ranges before its own. Equal values always fall in one range, but the map tasks that
 * summarise a range each see only part of it, and their counts add up only where their values
 * do not overlap ([[ValueRun]]: rows that reach them in order). Otherwise one job reads the
 * shuffle's output again, projects the keys, sorts them by Spark's own sort (its memory
 * accounted, spilling) and counts where the value changes.
 */
object DistinctOrderValues {

  /**
   * For each task of `source` (the range shuffle's output as the operator reads it), the distinct
   * values of `order` per group: one group without PARTITION BY (`groups` None); with it, one
   * per skewed key, the group of a row found by the split's bounds from its split keys (`groups`'
   * expressions: PARTITION BY keys, then ORDER BY), rows of other keys not counted.
   */
  def perTask(source: SparkPlan, order: Seq[SortOrder], numGroups: Int,
      groups: Option[(RangeBounds, Seq[Expression])]): Array[Array[Long]] = {
    val keys = groups.map(_._2).getOrElse(order.map(_.child))
    val projected =
      ProjectExec(keys.zipWithIndex.map { case (k, i) => Alias(k, s"_fastwindow_key$i")() }, source)
    // Any order that puts equal keys next to each other serves: ascending, nulls first.
    val sortOrder = projected.output.map(SortOrder(_, Ascending))
    val bounds = groups.map(_._1)
    val sorted = SortExec(sortOrder, global = false, projected)
    sorted.execute().mapPartitions { rows =>
      val equalKeys = new LazilyGeneratedOrdering(sortOrder, projected.output)
      Iterator(countChanges(rows, numGroups, equalKeys, bounds))
    }.collect()
  }

  /** The number of runs of equal keys among `rows` (sorted) per group. */
  private def countChanges(rows: Iterator[InternalRow], numGroups: Int,
      equalKeys: Ordering[InternalRow], bounds: Option[RangeBounds]): Array[Long] = {
    val counts = new Array[Long](numGroups)
    var previous: UnsafeRow = null
    rows.foreach { row =>
      val keys = row.asInstanceOf[UnsafeRow]
      val group = bounds.fold(0) { b =>
        val slot = b.rangeOf(keys)
        if (slot < 0) -1 else b.groupOf(slot)
      }
      if (group >= 0 && (previous == null || equalKeys.compare(previous, keys) != 0)) {
        counts(group) += 1
        previous = keys.copy()
      }
    }
    counts
  }
}

/**
 * The distinct ORDER BY values among one map task's rows of a range, when those rows arrived in
 * the window's order or its reverse (a table written in that order: the common time series):
 * their count and the lowest and highest value (rows, compared by the window's order). Otherwise
 * `ordered` is false, and the count is not known without sorting.
 */
final case class ValueRun(ordered: Boolean, count: Long, low: UnsafeRow, high: UnsafeRow)

object ValueRun {
  val Unordered: ValueRun = ValueRun(ordered = false, 0L, null, null)
  val Empty: ValueRun = ValueRun(ordered = true, 0L, null, null)

  /**
   * The run of the rows of several runs together (map tasks' parts of a range, or consecutive
   * ranges): exact when each is ordered and their spans of values meet at most at their ends
   * (a value at both ends is counted once); Unordered otherwise.
   */
  def concat(parts: Seq[ValueRun], ordering: Ordering[InternalRow]): ValueRun = {
    val runs = parts.filter(r => !r.ordered || r.count > 0)
    if (runs.isEmpty) Empty
    else if (runs.exists(!_.ordered)) Unordered
    else {
      val byLow = runs.sortWith((a, b) => ordering.compare(a.low, b.low) < 0)
      var count = byLow.head.count
      var high = byLow.head.high
      byLow.tail.foreach { run =>
        val c = ordering.compare(high, run.low)
        if (c > 0) return Unordered // the spans overlap: values may repeat
        count += run.count - (if (c == 0) 1 else 0)
        high = run.high
      }
      ValueRun(ordered = true, count, byLow.head.low, high)
    }
  }
}

/**
 * Follows the rows of one range as a map task offers them (see [[ValueRun]]): one comparison
 * with the previous value per row, and a copy only where the value changes. A task that reads
 * several files of a table written in order reads each in order, but not the files in order
 * (Spark packs them by size): the rows are cut into runs, each in order one way or the other,
 * up to [[ValueRunTracker.MaxRuns]], and the runs are added up as parts of the range are.
 */
final class ValueRunTracker(ordering: Ordering[InternalRow]) {
  private val done = scala.collection.mutable.ArrayBuffer.empty[ValueRun]
  private var first: UnsafeRow = _
  private var previous: UnsafeRow = _
  private var direction = 0 // 1: ascending, -1: descending, 0: one value so far
  private var ordered = true
  private var count = 0L

  def offer(row: UnsafeRow): Unit = if (ordered) {
    if (previous == null) start(row)
    else {
      val c = ordering.compare(previous, row)
      if (c != 0) {
        val step = if (c < 0) 1 else -1
        if (direction == 0) direction = step
        if (step == direction) {
          count += 1
          previous.copyFrom(row)
        } else if (done.length + 1 < ValueRunTracker.MaxRuns) {
          done += current
          start(row)
        } else ordered = false
      }
    }
  }

  private def start(row: UnsafeRow): Unit = {
    first = row.copy()
    previous = row.copy()
    direction = 0
    count = 1
  }

  private def current: ValueRun =
    if (direction >= 0) ValueRun(ordered = true, count, first, previous.copy())
    else ValueRun(ordered = true, count, previous.copy(), first)

  /** The runs so far together (Unordered when they overlap, or past the most runs). */
  def result: ValueRun =
    if (!ordered) ValueRun.Unordered
    else if (previous == null) ValueRun.Empty
    else ValueRun.concat(done.toSeq :+ current, ordering)
}

object ValueRunTracker {

  /** Most runs a map task follows per range before it leaves the count to a second read. */
  val MaxRuns = 64
}
