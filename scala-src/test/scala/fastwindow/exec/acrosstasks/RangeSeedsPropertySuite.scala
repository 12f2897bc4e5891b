package fastwindow.exec.acrosstasks

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BindReferences, GenericInternalRow, Literal, NthValue}
import org.apache.spark.sql.catalyst.expressions.EvalMode
import org.apache.spark.sql.catalyst.expressions
  .aggregate.{Average, Count, DeclarativeAggregate, First, Last, Max, Min}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.fastwindow.shims.ArithmeticShim
import org.apache.spark.sql.types.DoubleType
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.exec.acrosstasks.RangedEvaluation.SeededAggregate
import fastwindow.functions.AggregatesAcrossTasks
import fastwindow.exec.acrosstasks.SplitRows.{input, v}

/**
 * The seeds of a window's ranges combined from random map tasks' summaries, against the window's
 * rows taken whole in its order: each range's row count, the rows before it and in the window,
 * dense_rank's peer groups before it, and every seeded aggregate's state (sum, count, min, max,
 * avg, first, last, nth_value) over the rows before it (running frames), all rows (whole frames)
 * and the rows after it (frames shrinking from the current row), under ANSI and LEGACY sums.
 *
 * Sums near Long.MaxValue: LEGACY sums wrap as Spark's additions do, in any order. Under ANSI a
 * sum that overflows in the window's order fails there: a range is seeded with the state of the
 * rows before it up to the range whose own task fails, or the combine fails where Spark's loop
 * does; a whole frame's state is never handed out for rows whose sum overflows in that order.
 */
class RangeSeedsPropertySuite extends AnyFunSuite {

  /** The default of `spark.fastwindow.acrossTasks.maxValueRuns`. */
  private val MaxValueRuns = 64
  import RangeSeedsPropertySuite._

  private val trials = 800

  for (config <- configs) {
    test(s"seeds equal the whole window's states: ${config.name}") {
      val random = new Random(20261207L + config.name.hashCode)
      val seen = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
      for (trial <- 0 until trials) check(config, random, trial, seen)
      info(s"$trials trials: $seen")
      // Each kind of trial must come up, or the property checks too little.
      config.needs.foreach(kind => assert(seen(kind) >= 3, s"only ${seen(kind)} '$kind': $seen"))
    }
  }

  private def check(config: Config, random: Random, trial: Int,
      seen: scala.collection.mutable.Map[String, Int]): Unit = {
    val order = SplitRows.randomOrder(random)
    val ordering = new LazilyGeneratedOrdering(Seq(order), input)
    val shape = SummaryShape(Some(config.fold), Seq(order), 0, 0, valueOrder = Seq(order),
      maxValueRuns = MaxValueRuns)
    val split = SplitRows.split(random, SplitRows.randomRows(random, wideKeys = false), order,
      ordering, shape)
    val (tasks, starts, summaries) = (split.tasks, split.starts, split.summaries)
    val n = tasks.length
    val all = split.all
    def context = s"${config.name} trial $trial, order ${order.sql}, tasks' rows (key, v, id): " +
      tasks.map(_.map(r => s"(${SplitRows.key(r)}, ${SplitRows.value(r)}, ${r.getLong(2)})")
          .mkString(" ")).mkString(" | ")
    // dense_rank: each task's distinct keys, from its summary when it counted them.
    val distinct = tasks.map(rows => rows.map(SplitRows.key).distinct.length.toLong)
    summaries.indices.filter(summaries(_).values.ordered).foreach { t =>
      assert(summaries(t).values.count == distinct(t), s"task $t's distinct keys: $context")
    }
    if (summaries.forall(_.values.ordered)) seen("distinct counted") += 1
    if (summaries.exists(_.overflowed)) seen("folded in order") += 1
    val folds = config.seeded.map(s => new StateFold(s.aggregates, input))
    // Each seeded aggregate's state over the rows before each task in the window's order (None
    // from the row on whose update fails), and over the rows after it.
    val before = folds.map { f =>
      starts.map(s => scala.util.Try(f.fold(f.initialState, all.take(s).iterator)).toOption)
    }
    val after = folds.map { f =>
      starts.map(s => scala.util.Try(f.fold(f.initialState, all.drop(s).iterator)).toOption)
    }
    val overflows = config.seeded.indices.filter(j => before(j).last.isEmpty)
    val result =
      try {
        Right(RangeSeeds.combine(
            summaries,
            Some(distinct.toArray),
            Some(config.fold),
            config.seeded,
            config.numFunctions,
            (i, state) => config.fold.fold(state, tasks(i).iterator),
            0,
            0,
            Nil,
            ordering
          ))
      } catch { case e: ArithmeticException => Left(e) }
    val tolerance = 1e-9 * (1.0 + all.flatMap(SplitRows.value).map(x => math.abs(x.toDouble)).sum)
    result match {
      case Left(e) =>
        seen("failed") += 1
        assert(overflows.exists(j => config.seeded(j).rows != SeedRows.After),
          s"the combine failed ($e) where no sum overflows in the window's order: $context")
      case Right(None) =>
        seen("none") += 1
        assert(config.seeded.exists(_.rows == SeedRows.After),
          s"no seeds without a shrinking frame: $context")
      case Right(Some(seeds)) =>
        seen("seeded") += 1
        if (overflows.nonEmpty) seen("seeded though overflowing") += 1
        assert(seeds.length == n, context)
        // A running ANSI sum that overflows fails in the task of the range where it does.
        val runningFails = overflows.exists(j => config.seeded(j).rows == SeedRows.Before)
        for (t <- 0 until n) {
          val seed = seeds(t)
          assert(seed.rows == tasks(t).length && seed.rowsBefore == starts(t) &&
              seed.windowRows == all.length, s"task $t's counts: $context")
          assert(seed.groupsBefore == distinctBefore(all.take(starts(t))),
            s"task $t's peer groups before it: $context")
          val slots = config.seeded.map(_.slot).toSet
          (0 until config.numFunctions).filterNot(slots).foreach { k =>
            assert(seed.states(k) == null, s"task $t: function $k is not seeded: $context")
          }
          config.seeded.zipWithIndex.foreach { case (s, j) =>
            val expected: Option[InternalRow] = s.rows match {
              case SeedRows.Before =>
                // Past the row whose update fails, the seeds are never used (that range fails).
                assert(before(j)(t).isDefined || overflows.contains(j), context)
                before(j)(t)
              case SeedRows.All =>
                assert(
                  before(j).last.isDefined || runningFails,
                  s"task $t: ${describe(s)} is " +
                    "seeded with a state where its sum overflows in the window's order, and no " +
                    s"task fails: ${seed.states(s.slot)}: $context"
                )
                before(j).last
              case SeedRows.After =>
                assert(after(j)(t + 1).isDefined, s"task $t: ${describe(s)} seeded: $context")
                after(j)(t + 1)
            }
            expected.foreach { state =>
              assert(sameStates(s.aggregates, state, seed.states(s.slot), tolerance),
                s"task $t: ${describe(s)}: expected $state, got ${seed.states(s.slot)}: $context")
            }
          }
        }
    }
  }

  private def describe(s: SeededAggregate): String =
    s"${s.aggregates.mkString(", ")} over the rows ${s.rows}"
}

object RangeSeedsPropertySuite {

  /** The seeded functions of a window (function `slot` of `numFunctions`) and their fold. */
  final case class Config(name: String, seeded: Seq[SeededAggregate], numFunctions: Int,
      needs: Seq[String]) {
    val fold = new StateFold(seeded.flatMap(_.folded), input)
  }

  /** Function k + 1 (function 0 is not seeded: a row_number, say) for each of `specs`. */
  private def seededOf(specs: Seq[(DeclarativeAggregate, SeedRows)]): Seq[SeededAggregate] =
    specs.zipWithIndex.map { case ((agg, rows), k) =>
      RangedEvaluation.seededAggregate(k + 1, agg, rows)
    }

  private def everyRole(mode: EvalMode.Value): Seq[(DeclarativeAggregate, SeedRows)] = {
    val sum = ArithmeticShim.sum(v, mode)
    Seq(sum, Count(v), Min(v), Max(v), Average(v, mode), First(v, ignoreNulls = false),
      Last(v, ignoreNulls = true), NthValue(v, Literal(2), ignoreNulls = true))
      .map(_ -> SeedRows.Before) ++
      Seq(sum, First(v, ignoreNulls = true), Last(v, ignoreNulls = false),
        NthValue(v, Literal(3), ignoreNulls = false), Max(v)).map(_ -> SeedRows.All) ++
      Seq(sum, Min(v), Last(v, ignoreNulls = true), Average(v, mode)).map(_ -> SeedRows.After)
  }

  private def config(name: String, specs: Seq[(DeclarativeAggregate, SeedRows)],
      needs: String*): Config =
    Config(name, seededOf(specs), specs.length + 2, needs)

  val configs: Seq[Config] = Seq(
    config("every role, ANSI", everyRole(EvalMode.ANSI),
      "seeded", "none", "failed", "distinct counted", "folded in order"),
    config("every role, LEGACY", everyRole(EvalMode.LEGACY), "seeded", "distinct counted"),
    config("a whole frame's sum, ANSI",
      Seq(ArithmeticShim.sum(v, EvalMode.ANSI) -> SeedRows.All, Count(v) -> SeedRows.Before),
      "seeded", "failed", "folded in order"),
    config("a running sum, ANSI", Seq(ArithmeticShim.sum(v, EvalMode.ANSI) -> SeedRows.Before),
      "seeded", "failed", "seeded though overflowing", "folded in order")
  )

  /** Distinct keys among `rows` (NULL one of them). */
  private def distinctBefore(rows: Seq[InternalRow]): Long =
    rows.map(SplitRows.key).distinct.length.toLong

  /**
   * Whether two states of `aggregates` side by side are the same: those decided by rows by their
   * result (nth_value counts rows only up to n), the others field by field, doubles within
   * `tolerance` (partial sums of doubles merge within rounding).
   */
  def sameStates(aggregates: Seq[DeclarativeAggregate], expected: InternalRow, got: InternalRow,
      tolerance: Double): Boolean = {
    var at = 0
    got != null && aggregates.forall { a =>
      val buffer = a.aggBufferAttributes
      def own(state: InternalRow) = new GenericInternalRow(Array.tabulate[Any](buffer.length)(i =>
          state.get(at + i, buffer(i).dataType)))
      val (e, g) = (own(expected), own(got))
      at += buffer.length
      if (AggregatesAcrossTasks.decidedByRows(a)) {
        val result = BindReferences.bindReference(a.evaluateExpression, buffer)
        result.eval(e) == result.eval(g)
      } else {
        buffer.indices.forall { i =>
          if (e.isNullAt(i) || g.isNullAt(i)) e.isNullAt(i) && g.isNullAt(i)
          else if (buffer(i).dataType == DoubleType) {
            math.abs(e.getDouble(i) - g.getDouble(i)) <= tolerance
          } else e.get(i, buffer(i).dataType) == g.get(i, buffer(i).dataType)
        }
      }
    }
  }
}
