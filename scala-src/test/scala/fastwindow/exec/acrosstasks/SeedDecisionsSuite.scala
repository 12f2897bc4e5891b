package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, EvalMode, SortOrder, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.Count
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.fastwindow.shims.ArithmeticShim
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.exec.acrosstasks.SplitRows.{input, key, row, v}
import fastwindow.model.{FrameShape, RangeEdge, Spread}

/**
 * The driver's decisions around the seeds of a window's ranges: when the shuffle's output is
 * read again (dense_rank's distinct values, RANGE frames' rows), which aggregates carry a guard,
 * when a whole frame's sum is folded in the window's order, which rows a range's task returns,
 * and how many of their first rows parts of a range that kept fewer than asked still give.
 */
class SeedDecisionsSuite extends AnyFunSuite {

  /** The default of `spark.fastwindow.acrossTasks.maxValueRuns`. */
  private val MaxValueRuns = 64

  private val order = Seq(SortOrder(key, Ascending))
  private val ordering = new LazilyGeneratedOrdering(order, input)
  private val big = 4000000000000000000L

  private def summary(rows: Seq[UnsafeRow], shape: SummaryShape): RangeSummary = {
    val summarizer = new RangeSummarizer(shape, ordering, shape.valueOrdering(input), input)
    rows.foreach(summarizer.offer)
    summarizer.result
  }

  private def sumsShape(mode: EvalMode.Value, rows: SeedRows) = {
    val seeded = Seq(RangedEvaluation.seededAggregate(0, ArithmeticShim.sum(v, mode), rows))
    (seeded,
      SummaryShape(Some(new StateFold(seeded.flatMap(_.folded), input)), order, 0, 0,
        maxValueRuns = MaxValueRuns))
  }

  test("a whole frame's ANSI sum overflowing in the window's order fails, though no merge does") {
    // Keys 0..5 with v = +4e18 x3 then -4e18 x3: Spark's loop fails at the third row. Two map
    // tasks offer +, -, + and -, +, -: their folds (4e18, -4e18) and merge (0) fit in a long.
    val rows = (0 until 6).map(k => row(k.toLong, if (k < 3) big else -big, k.toLong))
    val (seeded, shape) = sumsShape(EvalMode.ANSI, SeedRows.All)
    val parts = Seq(Seq(rows(0), rows(3), rows(1)), Seq(rows(4), rows(2), rows(5)))
    val one = RangeSummary.concat(parts.map(summary(_, shape)), shape, ordering, None)
    assert(!one.overflowed)
    val empty = RangeSummary.concat(Nil, shape, ordering, None)
    var folded = 0
    def combine(summaries: Array[RangeSummary], inOrder: Seq[Seq[UnsafeRow]]) =
      RangeSeeds.combine(summaries, None, shape.fold, seeded, 1,
        (i, state) => {
          folded += 1
          shape.fold.get.fold(state, inOrder(i).iterator)
        }, 0, 0, Nil, ordering)
    // The merged state, 0, is no seed: folded in order, the sum fails where Spark's loop does.
    intercept[ArithmeticException](combine(Array(empty, one), Seq(Nil, rows)))
    assert(folded == 2)
    // Far from an overflow, the merged states are the seeds; no range is folded again.
    val small = (0 until 6).map(k => row(k.toLong, k.toLong - 2, k.toLong))
    folded = 0
    val seeds = combine(Array(summary(small.take(2), shape), summary(small.drop(2), shape)),
      Seq(small.take(2), small.drop(2))).get
    assert(folded == 0 && seeds.forall(_.states(0).getLong(0) == 3L))
  }

  test("whole frames' guarded sums fold their sum of |x|; other aggregates and frames do not") {
    val all = RangedEvaluation.seededAggregate(2, ArithmeticShim.sum(v, EvalMode.ANSI),
      SeedRows.All)
    assert(all.aggregates.length == 1 && all.folded.length == 2 && all.safeMagnitude.isDefined)
    val legacy = RangedEvaluation.seededAggregate(2, ArithmeticShim.sum(v, EvalMode.LEGACY),
      SeedRows.All)
    assert(legacy.watched.isEmpty && legacy.safeMagnitude.isEmpty)
    assert(RangedEvaluation.seededAggregate(0, Count(v), SeedRows.All).watched.isEmpty)
    val running = RangedEvaluation.seededAggregate(0, ArithmeticShim.sum(v, EvalMode.ANSI),
      SeedRows.Before)
    assert(running.folded.length == 1 && running.safeMagnitude.isEmpty)
    val shrinking = RangedEvaluation.seededAggregate(0, ArithmeticShim.sum(v, EvalMode.ANSI),
      SeedRows.After)
    assert(shrinking.aggregates.length == 2 && shrinking.watched.isEmpty &&
      shrinking.safeMagnitude.isDefined)
  }

  test("dense_rank's distinct values come from the summaries only when each counted its own") {
    val shape = SummaryShape(None, order, 0, 0, valueOrder = order, maxValueRuns = MaxValueRuns)
    val inOrder = summary(Seq(row(1L, 0L, 0), row(2L, 0L, 1), row(2L, 0L, 2)), shape)
    val shuffled = summary(Seq(row(1L, 0L, 0), row(3L, 0L, 1), row(2L, 0L, 2)), shape)
    assert(RangedEvaluation.countedDistinct(Array(Array(inOrder, inOrder)))
        .map(_.map(_.toSeq).toSeq).contains(Seq(Seq(2L, 2L))))
    assert(RangedEvaluation.countedDistinct(Array(Array(inOrder), Array(shuffled))).isEmpty)
  }

  test("ranges are read again only for RANGE frames whose map tasks' summaries kept too few") {
    val frame = FrameShape.SlidingRange(RangeEdge.CurrentRow, RangeEdge.CurrentRow,
      Some(order.head), "range")
    val reach = Spread.ValueReach(Seq(frame), 4)
    val reaching = SummaryShape.of(None, order, Some(Spread.Halos(0, 0, Nil, Some(reach))), Nil,
      input)
    val counted = SummaryShape.of(None, order, Some(Spread.Halos(1, 1)), Nil, input)
    val plain = summary(Seq(row(1L, 0L, 0)), reaching)
    val wrapping = Array(Array(plain, plain.copy(wraps = true)))
    assert(RangedEvaluation.readsAgainForReach(reaching, fromMaps = true, Array(Array(plain))))
    assert(!RangedEvaluation.readsAgainForReach(reaching, fromMaps = false, Array(Array(plain))))
    assert(!RangedEvaluation.readsAgainForReach(reaching, fromMaps = true, wrapping))
    assert(!RangedEvaluation.readsAgainForReach(counted, fromMaps = true, Array(Array(plain))))
  }

  test("a halo range's task evaluates its neighbours' rows and returns only its own") {
    val rows = (0 until 7).map(i => row(i.toLong, i.toLong, i.toLong))
    val seed = RangeSeed(3, 2, 7, 0, null, rows.take(2).toArray, rows.drop(5).toArray)
    var given = Seq.empty[Long]
    val evaluate: RangedEvaluation.Evaluate = (in, s) => {
      assert(s == null)
      val all = in.toList
      given = all.map(_.getLong(2))
      all.iterator.map(r => InternalRow(r.getLong(2) * 10))
    }
    val out = RangedEvaluation.evaluateRange(Spread.Halos(2, 2), rows.slice(2, 5).iterator, seed,
      evaluate, identity).map(_.getLong(0)).toList
    assert(given == (0 until 7).map(_.toLong) && out == Seq(20L, 30L, 40L))
    var seeded: RangeSeed = null
    RangedEvaluation.evaluateRange(Spread.Seeded, rows.iterator, seed,
      (in, s) => {
        seeded = s
        in
      },
      identity).foreach(_ => ())
    assert(seeded eq seed)
  }

  test("a seed holds the whole window only when no rows come before and all are in it") {
    assert(RangeSeed(5, 0, 5, 0, null, Array.empty, Array.empty).wholeWindow)
    assert(RangeSeed(0, 0, 0, 0, null, Array.empty, Array.empty).wholeWindow)
    assert(!RangeSeed(0, 0, 0, 0, null, Array.empty, Array.empty).ofRange)
    assert(!RangeSeed(3, 0, 5, 0, null, Array.empty, Array.empty).wholeWindow)
    assert(!RangeSeed(2, 3, 5, 0, null, Array.empty, Array.empty).wholeWindow)
    assert(RangeSeed(2, 3, 5, 0, null, Array.empty, Array.empty).ofRange)
  }

  test("parts of a range that kept fewer first rows than asked give only as many") {
    val shape = SummaryShape(None, order, 2, 2, maxValueRuns = MaxValueRuns)
    val fewer = shape.copy(firstRows = 1, lastRows = 1)
    // A map task that kept one of its three rows: its others may come before the second part's.
    val a = summary(Seq(row(5L, 0L, 0), row(1L, 0L, 1), row(9L, 0L, 2)), fewer)
    val b = summary(Seq(row(3L, 0L, 3), row(4L, 0L, 4)), shape)
    val whole = RangeSummary.concat(Seq(a, null, b), shape, ordering, None)
    assert(whole.rows == 5 && whole.first.map(_.getLong(0)).toSeq == Seq(1L))
    assert(whole.last.map(_.getLong(0)).toSeq == Seq(9L))
    val all = RangeSummary.concat(Seq(b, summary(Seq(row(7L, 0L, 5)), shape)), shape, ordering,
      None)
    assert(all.first.map(_.getLong(0)).toSeq == Seq(3L, 4L))
    assert(all.last.map(_.getLong(0)).toSeq == Seq(4L, 7L))
  }
}
