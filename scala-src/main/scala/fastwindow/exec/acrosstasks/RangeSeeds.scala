package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BindReferences, UnsafeRow}

/**
 * Combines the ranges' summaries, in range order, into each range's [[RangeSeed]] (on the driver:
 * the summaries are small, each a count, one state and at most the halo rows). The halo rows of
 * lag/lead IGNORE NULLS (`nonNull`, ordered by `ordering`) are the nearest rows with a value,
 * joined to the rows next to the range that the other halo functions read.
 * RANGE frames bounded by value offsets (`reach`) add the rows their edges reach; when the
 * summaries do not hold them all, or a key plus an offset wraps around, there are no seeds
 * (None): the ranges must be evaluated in one task.
 *
 * States: the state before range i is the merge of the states of ranges 0 .. i-1, in order, by
 * the aggregates' merge expressions (those decided by a few rows, first/last/nth_value: the state
 * of the deciding rows of ranges 0 .. i-1); an aggregate over the whole frame (`SeedRows.All`) gets
 * the merge of all ranges' states, one over a frame shrinking from the current row the merge of
 * the states of the ranges after (with a guard, `fastwindow.functions.SlidingGuard`, only where
 * the sum of |x| of all rows shows that no order can overflow; else, or when these merges
 * overflow, there are no seeds). Merging integral sums under ANSI checks for overflow; when a
 * range's fold or a merge overflows, a state fitting in a long may still be reached in Spark's
 * order (the sum of +max and -max), or Spark's loop may fail at some row, and so it may where
 * no merge overflows (+max, +max and -max, -max in two map tasks): a running frame's task then
 * fails at that row itself, but no task folds a whole frame's rows, so a guarded one merges
 * only where the sum of |x| of all rows shows that no order can overflow. Otherwise the states
 * are computed by `foldInOrder` instead, range after range in the window's order (`foldInOrder(i,
 * state)`: range i's sorted rows folded into `state`), which gives exactly Spark's intermediate
 * states and fails exactly where Spark's loop fails.
 */
object RangeSeeds {

  def combine(
      summaries: Array[RangeSummary],
      distinctValues: Option[Array[Long]],
      fold: Option[StateFold],
      seeded: Seq[RangedEvaluation.SeededAggregate],
      numFunctions: Int,
      foldInOrder: (Int, InternalRow) => InternalRow,
      before: Int,
      after: Int,
      nonNull: Seq[DecidingRow],
      ordering: Ordering[InternalRow],
      reach: Option[ReachedRows] = None): Option[Array[RangeSeed]] = {
    if (reach.isDefined && summaries.exists(_.wraps)) return None
    val n = summaries.length
    val rowsBefore = summaries.map(_.rows).scanLeft(0L)(_ + _)
    val groupsBefore = distinctValues.getOrElse(new Array[Long](n)).scanLeft(0L)(_ + _)
    // The states before each range and, last, of all of them.
    val statesBefore: Array[InternalRow] = fold match {
      case None => Array.fill(n + 1)(null)
      case Some(f) =>
        val merged =
          if (summaries.exists(_.overflowed)) None
          else {
            try Some(summaries.map(_.state).scanLeft(f.initialState)(f.merged))
            catch { case _: ArithmeticException => None }
          }
        // A whole frame's guarded sum merged is Spark's only where no order can overflow.
        merged.filter(m => farFromOverflow(f, seeded, SeedRows.All, m(n)))
          .map(withDecidingRows(f, summaries, _))
          .getOrElse(inOrder(n, f.initialState, foldInOrder))
    }
    // The states of the rows after each range, when a shrinking frame needs them.
    val statesAfter: Array[InternalRow] =
      if (!seeded.exists(_.rows == SeedRows.After)) null
      else {
        statesAfterRanges(fold.get, summaries)
          .filter(after => farFromOverflow(fold.get, seeded, SeedRows.After, after(0))) match {
          case Some(after) => after
          case None => return None
        }
      }
    // The rows the halo functions read in the ranges before (after) a range (`ranges`: those
    // ranges, nearest first), in the window's order: those next to it, counted, and with
    // lag/lead IGNORE NULLS the nearest with a value, both (a row kept by both once).
    def counted(ranges: () => Iterator[Int], isBefore: Boolean): Array[UnsafeRow] =
      if (isBefore) halo(ranges().map(summaries(_).last), before, fromEnd = true)
      else halo(ranges().map(summaries(_).first), after, fromEnd = false)
    def withValues(ranges: () => Iterator[Int], isBefore: Boolean,
        next: Array[UnsafeRow]): Array[UnsafeRow] =
      if (nonNull.isEmpty) next
      else {
        DecidingRows.union(Seq(next,
            DecidingRows.nearest(() => ranges().map(summaries(_).nonNull),
              nonNull, isBefore, ordering)), ordering)
      }
    // With RANGE frames bounded by value offsets, the longer of the rows they reach and the halo
    // rows counted (both end, or start, at the range).
    def withReached(
        i: Int, counted: Array[UnsafeRow], isBefore: Boolean): Option[Array[UnsafeRow]] =
      if (reach.isEmpty || summaries(i).rows == 0) Some(counted)
      else {
        val own = summaries(i)
        val reached =
          if (isBefore) {
            reach.get.before(own.first.head,
              (i - 1 to 0 by -1).iterator.map(j => (summaries(j).last, summaries(j).rows)))
          } else {
            reach.get.after(own.last.last,
              (i + 1 until n).iterator.map(j => (summaries(j).first, summaries(j).rows)))
          }
        reached.map(r => if (r.length > counted.length) r else counted)
      }
    val seeds = Array.tabulate(n) { i =>
      val states = new Array[InternalRow](numFunctions)
      if (statesBefore(i) != null) {
        seeded.zip(firstAggregates(seeded)).foreach { case (s, k) =>
          val state = s.rows match {
            case SeedRows.Before => statesBefore(i)
            case SeedRows.All => statesBefore(n)
            case SeedRows.After => statesAfter(i + 1)
          }
          states(s.slot) = fold.get.slice(state, k, k + s.aggregates.length)
        }
      }
      val rangesBefore = () => (i - 1 to 0 by -1).iterator
      val rangesAfter = () => (i + 1 until n).iterator
      for {
        nextBefore <- withReached(i, counted(rangesBefore, isBefore = true), isBefore = true)
        nextAfter <- withReached(i, counted(rangesAfter, isBefore = false), isBefore = false)
      } yield RangeSeed(
        summaries(i).rows,
        rowsBefore(i),
        rowsBefore(n),
        groupsBefore(i),
        states,
        withValues(rangesBefore, isBefore = true, nextBefore),
        withValues(rangesAfter, isBefore = false, nextAfter)
      )
    }
    if (seeds.forall(_.isDefined)) Some(seeds.map(_.get)) else None
  }

  /** Where each seeded function's aggregates start in the fold. */
  private def firstAggregates(seeded: Seq[RangedEvaluation.SeededAggregate]): Seq[Int] =
    seeded.map(_.folded.length).scanLeft(0)(_ + _)

  /**
   * The state of the rows after each range (`i + 1` for range i; 0: all rows), merged from the
   * last range back: None where a range's fold or a merge overflowed (an integral sum under
   * ANSI beside the shrinking frames: Spark's order decides where it fails).
   */
  private def statesAfterRanges(
      f: StateFold, summaries: Array[RangeSummary]): Option[Array[InternalRow]] =
    if (summaries.exists(_.overflowed)) None
    else {
      try {
        val merged = summaries.map(_.state).scanRight(f.initialState)(f.merged)
        if (f.decidedByRows.isEmpty) Some(merged)
        else {
          val none = Array.fill(f.decidedByRows.length)(Array.empty[UnsafeRow])
          val rowsAfter =
            summaries.map(_.deciding).scanRight(none)(DecidingRows.inOrder(f.decidedByRows))
          Some(merged.zip(rowsAfter).map { case (state, rows) => f.withStatesOf(state, rows) })
        }
      } catch { case _: ArithmeticException => None }
    }

  /**
   * Whether every guarded function whose seed is of the rows `which` has a sum of |x| over all
   * rows (`all`) below half its guard's limit: then none of its frames comes near an overflow in
   * any order, and the states of consecutive rows merge exactly as Spark's loop adds (frames
   * that end with the rows after a range, see `TwoStacks`; a whole frame, which no task folds).
   */
  private def farFromOverflow(f: StateFold, seeded: Seq[RangedEvaluation.SeededAggregate],
      which: SeedRows, all: InternalRow): Boolean =
    seeded.zip(firstAggregates(seeded)).forall { case (s, k) =>
      s.rows != which || s.safeMagnitude.forall { safe =>
        val magnitude = s.folded.last
        val at = k + s.folded.length - 1
        val sum = BindReferences.bindReference(magnitude.evaluateExpression,
          magnitude.aggBufferAttributes).eval(f.slice(all, at))
        sum == null || sum.asInstanceOf[Double] < safe / 2
      }
    }

  /**
   * `merged` (the states before each range and of all) with the aggregates decided by rows
   * ([[StateFold.decidedByRows]]) given the state of the deciding rows of the ranges before.
   */
  private def withDecidingRows(f: StateFold, summaries: Array[RangeSummary],
      merged: Array[InternalRow]): Array[InternalRow] =
    if (f.decidedByRows.isEmpty) merged
    else {
      val none = Array.fill(f.decidedByRows.length)(Array.empty[UnsafeRow])
      val rowsBefore =
        summaries.map(_.deciding).scanLeft(none)(DecidingRows.inOrder(f.decidedByRows))
      merged.zip(rowsBefore).map { case (state, rows) => f.withStatesOf(state, rows) }
    }

  /** The states before each range, folding each range's sorted rows in turn (see above). */
  private def inOrder(n: Int, initial: InternalRow, foldInOrder: (Int, InternalRow) => InternalRow)
      : Array[InternalRow] = {
    val states = new Array[InternalRow](n + 1)
    states(0) = initial
    for (i <- 0 until n) states(i + 1) = foldInOrder(i, states(i))
    states
  }

  /**
   * `count` rows next to a range: from the nearest ranges outwards (`ranges`), each range's rows
   * already in the window's order and at most `count` of them; `fromEnd` takes the last rows of
   * the ranges before, else the first of the ranges after.
   */
  private def halo(
      ranges: Iterator[Array[UnsafeRow]], count: Int, fromEnd: Boolean): Array[UnsafeRow] = {
    var taken = List.empty[Array[UnsafeRow]]
    var need = count
    while (need > 0 && ranges.hasNext) {
      val rows = ranges.next()
      val part = if (fromEnd) rows.takeRight(need) else rows.take(need)
      taken = part :: taken
      need -= part.length
    }
    if (fromEnd) taken.toArray.flatten else taken.reverse.toArray.flatten
  }
}
