package fastwindow.kernels

import java.math.{BigDecimal => JBigDecimal, RoundingMode}

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.WindowTestKit._
import fastwindow.kernels.AggregateReference._

/**
 * sum over every frame with ANSI mode on (Spark's arithmetic error exactly where Spark raises it)
 * and in TRY mode (try_sum: null from a frame's first overflowing partial sum), on both
 * evaluators, against the reference of [[AggregateReference]].
 */
class AggregateOverflowSuite extends AnyFunSuite with AggregateReference {

  /** The reference's marker for "Spark raises an overflow error computing this frame". */
  private case object Overflow

  /**
   * sum(bigint) with ANSI on: Spark adds the frame's values in row order from its first row and
   * fails as soon as a partial sum overflows, even when the total would fit.
   */
  private def refAnsiSumLong(vs: Seq[Any]): Any = foldExact(vs, Overflow)

  /** try_sum(bigint): like ANSI, but the frame's result is null instead of an error. */
  private def refTrySumLong(vs: Seq[Any]): Any = foldExact(vs, null)

  /** Adds the frame's values in row order; `onOverflow` as soon as a partial sum overflows. */
  private def foldExact(vs: Seq[Any], onOverflow: Any): Any = {
    val xs = nonNull(vs).map(asLong).toArray
    if (xs.isEmpty) null
    else {
      var acc = 0L
      var j = 0
      var overflow = false
      while (j < xs.length && !overflow) {
        val next = acc + xs(j)
        // two's complement: overflow iff both operands' signs differ from the result's
        if (((acc ^ next) & (xs(j) ^ next)) < 0) overflow = true else acc = next
        j += 1
      }
      if (overflow) onOverflow else acc
    }
  }

  /** sum(decimal) with ANSI on: exact, and an error when the frame's sum does not fit. */
  private def refAnsiSumDecimal(precision: Int, scale: Int)(vs: Seq[Any]): Any =
    refSumDecimal(precision, scale)(vs) match {
      case null if nonNull(vs).nonEmpty => Overflow
      case v => v
    }

  test(
    "random partitions, ANSI mode: a partition fails iff some frame overflows as in Spark, else exact results") {
    val ansiCases = Seq(
      AggCase("sum(l) ANSI", sumOf(l, EvalMode.ANSI), L, refAnsiSumLong),
      AggCase("sum(big) ANSI", sumOf(big, EvalMode.ANSI), BIG, refAnsiSumDecimal(38, 0)))
    val frames: Seq[RefFrame] = Seq(WholeRows, RunningRows, RunningRange) ++ slidingFrames
    val r = new Random(36)
    var outcomes = Map.empty[Boolean, Int].withDefaultValue(0)
    for (c <- ansiCases; frame <- frames) {
      val supported =
        check(Seq(win(windowFunction(c.function), byK.spec, frame.spark)), byK.spec).isRight
      assert(supported || frame.isInstanceOf[SlidingRows],
        s"${c.label} over $frame must be supported")
      if (supported) {
        val layout = layoutFor(Seq(c), frame, byK)
        val evaluators =
          scala.collection.mutable.Map(flavors.map(fl => fl -> fl.create(layout)): _*)
        for (n <- r.shuffle((0 to 30).toVector ++ Seq(80))) {
          val rows = randomPartition(r, n, byK)
          val exp = expected(Seq(c), frame, byK, rows)
          val overflows = exp.exists(_.contains(Overflow))
          outcomes += overflows -> (outcomes(overflows) + 1)
          for (flavor <- flavors) {
            scala.util.Try(runPartition(evaluators(flavor), layout, rows)) match {
              case scala.util.Success(act) =>
                if (overflows) {
                  fail(
                    s"[$flavor, ${c.label}, $frame, n=$n] expected an overflow error, got results " +
                      exp.zip(act).map { case (e, a) => s"expected=${e.head} actual=${a.head}" }.mkString(
                        "\n  ", "\n  ", ""))
                }
                firstDifference(exp, act, layout, rows, schema).foreach { diff =>
                  fail(s"[$flavor, ${c.label}, $frame, n=$n] $diff")
                }
              case scala.util.Failure(e: ArithmeticException) =>
                if (!overflows) {
                  fail(s"[$flavor, ${c.label}, $frame, n=$n] unexpected overflow error; expected " +
                      exp.map(_.head).mkString(", "), e)
                }
                // A task that failed is not reused: Spark would fail the task.
                evaluators(flavor) = flavor.create(layout)
              case scala.util.Failure(e) => throw e
            }
          }
        }
      }
    }
    assert(outcomes(true) > 20 && outcomes(false) > 20,
      s"too few partitions of one kind: $outcomes")
  }

  test(
    "random partitions, TRY mode (try_sum): null from the first overflowing partial sum of a frame, both evaluators") {
    val tryCases = Seq(
      AggCase("try_sum(l)", sumOf(l, EvalMode.TRY), L, refTrySumLong),
      AggCase("try_sum(big)", sumOf(big, EvalMode.TRY), BIG, refSumDecimal(38, 0)))
    val frames = (Seq(WholeRows, RunningRows, RunningRange) ++ slidingFrames).filter { frame =>
      val supported = tryCases.forall(c =>
        check(Seq(win(windowFunction(c.function), byK.spec, frame.spark)), byK.spec).isRight)
      assert(supported || frame.isInstanceOf[SlidingRows], s"try_sum over $frame must be supported")
      supported
    }
    checkRandom(tryCases, frames, byK, (0 to 30) ++ Seq(80), seed = 37)
  }

  test(
    "hand-computed: try_sum is null from a frame's first overflowing partial sum (as Spark 4.3)") {
    val rows = Seq[Any](Long.MaxValue, 1L, -5L, null, 3L).zipWithIndex.map { case (x, j) =>
      rowWith(j, L -> x)
    }
    val res = results(Seq(sumOf(l, EvalMode.TRY) -> RunningRows,
        sumOf(l, EvalMode.TRY) -> SlidingRows(Some(-1), Some(0)),
        sumOf(l, EvalMode.TRY) -> WholeRows), rows)
    assert(res(0) == Seq(Long.MaxValue, null, null, null, null))
    assert(res(1) == Seq(Long.MaxValue, null, -4L, -5L, 3L))
    assert(res(2) == Seq.fill(5)(null))
  }

  test(
    "ANSI mode: bigint and decimal sum overflow raise Spark's arithmetic error on both evaluators") {
    val longRows = Seq(Long.MaxValue, 1L).zipWithIndex.map { case (x, j) => rowWith(j, L -> x) }
    val nine = decimal("90000000000000000000000000000000000000", 38, 0)
    val decRows = Seq(nine, nine).zipWithIndex.map { case (x, j) => rowWith(j, BIG -> x) }
    for {
      (function, rows) <-
        Seq(sumOf(l, EvalMode.ANSI) -> longRows, sumOf(big, EvalMode.ANSI) -> decRows)
      frame <- Seq(WholeRows, RunningRows, RunningRange)
      flavor <- flavors
    } {
      val layout = layoutOf(Seq(win(agg(function), byK.spec, frame.spark)), byK.spec, schema)
      val e = intercept[ArithmeticException] {
        runPartition(flavor.create(layout), layout, rows)
      }
      val condition = e match {
        case t: org.apache.spark.SparkThrowable => t.getErrorClass // getCondition from Spark 4.0
        case _ => null
      }
      // Spark 3.5's decimal overflow condition has no sub-conditions yet.
      assert(
        Set("ARITHMETIC_OVERFLOW", "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION",
          "NUMERIC_VALUE_OUT_OF_RANGE.WITHOUT_SUGGESTION", "NUMERIC_VALUE_OUT_OF_RANGE").contains(
          condition),
        s"[$flavor, $frame, ${function.sql(false)}] unexpected error condition $condition: ${e.getMessage}"
      )
    }
  }

  test("a decimal average that does not fit its type: ANSI raises, LEGACY and TRY give null, " +
    "over every frame on both evaluators") {
    // avg(decimal(38,0)) is decimal(38,4): 34 integral digits, where the sum's decimal(38,0)
    // holds every frame's sum, far below the guard's bound: only the result step overflows.
    val huge = decimal("900000000000000000000000000000000000", 38, 0)
    val rows = Seq[Any](decimal("1", 38, 0), huge, decimal("3", 38, 0), null, decimal("5", 38, 0))
      .zipWithIndex.map { case (x, j) => rowWith(j, BIG -> x) }
    val frames = Seq(
      WholeRows,
      RunningRows,
      RunningRange,
      SlidingRows(Some(-1), Some(0)),
      SlidingRows(Some(0), Some(1)),
      SlidingRows(Some(0), None),
      SlidingRows(Some(-3), Some(-1)),
      ValueRange(Some(-1), Some(0)),
      ValueRange(Some(0), Some(1)),
      ValueRange(Some(0), None)
    )
    for (frame <- frames; flavor <- flavors) {
      val layout = layoutOf(Seq(win(agg(Average(big, EvalMode.ANSI)), byK.spec, frame.spark)),
        byK.spec, schema)
      val e = intercept[ArithmeticException] {
        runPartition(flavor.create(layout), layout, rows)
      }
      val condition = e match {
        case t: org.apache.spark.SparkThrowable => t.getErrorClass
        case _ => null
      }
      assert(condition != null && condition.startsWith("NUMERIC_VALUE_OUT_OF_RANGE"),
        s"[$flavor, $frame] unexpected error $condition: ${e.getMessage}")
    }
    for (mode <- Seq(EvalMode.LEGACY, EvalMode.TRY); frame <- frames) {
      val c = AggCase(s"avg(big) $mode", Average(big, mode), BIG, refAvgDecimal(38, 4))
      val exp = expected(Seq(c), frame, byK, rows.toIndexedSeq).map(_.head)
      assert(results(Seq(c.function -> frame), rows)(0) == exp, s"[$mode, $frame]")
    }
  }
}
