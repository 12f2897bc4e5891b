package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * One range of a window spread over tasks, as the summary pass sees it: its rows in the order the
 * shuffle delivers them, not sorted.
 *
 * @param rows     its row count
 * @param state    the seeded aggregates' buffers side by side, folded over its rows in that order
 *                 (null when there are none, or when folding them overflowed: `overflowed`)
 * @param first    its first rows by the window's order (as many as the range after it reads)
 * @param last     its last rows by that order (as many as the range before it reads)
 * @param values   its distinct ORDER BY values, when dense_rank needs them (else null)
 * @param deciding for each aggregate whose state is that of a few rows
 *                 ([[StateFold.decidedByRows]]), those rows (none when no row of the range counts
 *                 for it); `state` holds their state
 * @param nonNull  for lag/lead IGNORE NULLS, the rows of each of the shape's `nonNull` (its last
 *                 or first rows whose input has a value)
 * @param wraps    whether a row's key plus a RANGE frame's offset wraps around (see
 *                 [[ReachedRows]]; false when the shape reaches no rows by value)
 * @param run      whether its rows came in order of the first ORDER BY key, when the shape
 *                 follows it (a map task's summary; else null): see [[BlocksInOrder]]
 */
final case class RangeSummary(
    rows: Long,
    state: InternalRow,
    overflowed: Boolean,
    first: Array[UnsafeRow],
    last: Array[UnsafeRow],
    values: ValueRun,
    deciding: Array[Array[UnsafeRow]],
    nonNull: Array[Array[UnsafeRow]],
    wraps: Boolean = false,
    run: KeyRun = null) {

  /** The bytes of the rows it holds (kept rows; the state, when it is an UnsafeRow). */
  def heldBytes: Long = {
    val rows = first.iterator ++ last.iterator ++ deciding.iterator.flatten ++
      nonNull.iterator.flatten ++ Iterator(state).collect { case row: UnsafeRow => row }
    rows.map(_.getSizeInBytes.toLong).sum
  }
}

object RangeSummary {

  /**
   * The summary of consecutive parts of a range, or of consecutive ranges, from theirs (`parts`
   * in order; null for a part without rows): counts add up, states merge in that order (an
   * overflow is recorded, as a fold's is), and the first and last rows are taken from all of
   * theirs by `ordering`.
   */
  def concat(parts: Seq[RangeSummary], shape: SummaryShape, ordering: Ordering[InternalRow],
      valueOrdering: Option[Ordering[InternalRow]]): RangeSummary = {
    val fold = shape.fold
    val present = parts.filter(_ != null)
    var overflowed = present.exists(_.overflowed)
    val deciding = fold.map(f =>
      DecidingRows.of(present.map(_.deciding), f.decidedByRows,
        ordering)).getOrElse(Array.empty[Array[UnsafeRow]])
    val state = fold match {
      case Some(f) if !overflowed =>
        // Parts of one range are not in row order: the states of aggregates decided by rows
        // come from the deciding rows of all the parts.
        try f.withStatesOf(present.map(_.state).foldLeft(f.initialState)(f.merged), deciding)
        catch {
          case _: ArithmeticException =>
            overflowed = true
            null
        }
      case _ => null
    }
    RangeSummary(
      present.map(_.rows).sum,
      state,
      overflowed,
      present.flatMap(_.first).sorted(ordering)
        .take(exactlyKept(present, _.first, shape.keptFirst)).toArray,
      present.flatMap(_.last).sorted(ordering)
        .takeRight(exactlyKept(present, _.last, shape.keptLast)).toArray,
      valueOrdering.map(o => ValueRun.concat(present.map(_.values), o)).orNull,
      deciding,
      DecidingRows.of(present.map(_.nonNull), shape.nonNull, ordering),
      present.exists(_.wraps)
    )
  }

  /**
   * Each task's summary from the map tasks' summaries, as the driver reads them: `byMap(m)` holds
   * map task m's summary of every slot (`numRanges` per group; null for a slot without its rows),
   * `ranges` the ranges each task reads (from, until); one array per group (a skewed key, or one
   * without PARTITION BY), a task's parts taken range by range, each in map order.
   */
  def ofTasks(byMap: Seq[Array[RangeSummary]], ranges: Seq[(Int, Int)], numRanges: Int,
      numGroups: Int, shape: SummaryShape, ordering: Ordering[InternalRow],
      valueOrdering: Option[Ordering[InternalRow]]): Array[Array[RangeSummary]] =
    Array.tabulate(numGroups) { g =>
      ranges.map { case (from, until) =>
        val parts =
          for (range <- from until until; map <- byMap) yield map(g * numRanges + range)
        concat(parts, shape, ordering, valueOrdering)
      }.toArray
    }

  /**
   * How many of the first (last) rows of parts taken together are the whole's: at most `kept`,
   * and no more than any part that holds more rows than it kept has kept, since the rows it left
   * out may come before (after) its kept ones.
   */
  private def exactlyKept(parts: Seq[RangeSummary], rows: RangeSummary => Array[UnsafeRow],
      kept: Int): Int =
    parts.filter(p => rows(p).length < p.rows).map(rows(_).length).foldLeft(kept)(math.min)
}
