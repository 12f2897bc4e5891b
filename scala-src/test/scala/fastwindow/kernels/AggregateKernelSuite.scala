package fastwindow.kernels

import java.math.{BigDecimal => JBigDecimal, RoundingMode}

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.config.FastWindowConf
import fastwindow.WindowTestKit._
import fastwindow.functions.AggregateSpec
import fastwindow.kernels.AggregateReference._

/**
 * count, count(*), sum, avg, min, max and nth_value over whole-partition, running and sliding
 * ROWS and RANGE frames, on both evaluators, against the naive reference of
 * [[AggregateReference]] (with ANSI mode off; see [[AggregateOverflowSuite]] for ANSI and TRY).
 *
 * Sliding frames combine partial aggregates in another order than Spark's row-by-row loop; for
 * them double sums and averages are compared within the documented tolerance (1e-12 times the sum
 * of |x| over the frame; NaN and infinities exactly), everything else exactly; with
 * `spark.fastwindow.exactFloats` they are folded in Spark's order and must match bit for bit.
 */
class AggregateKernelSuite extends AnyFunSuite with AggregateReference {

  test("result types are Spark's: sum(int)->bigint, avg->double, decimal sums/avgs widened") {
    // Guards the reference's assumptions about result types.
    assert(sum(i).dataType == LongType)
    assert(sum(l).dataType == LongType)
    assert(sum(d).dataType == DoubleType && sum(f).dataType == DoubleType)
    assert(sum(dec).dataType == DecimalType(20, 2))
    assert(sum(big).dataType == DecimalType(38, 0))
    assert(avg(i).dataType == DoubleType && avg(l).dataType == DoubleType)
    assert(avg(dec).dataType == DecimalType(14, 6))
    assert(avg(big).dataType == DecimalType(38, 4))
    assert(Count(Literal(1)).dataType == LongType)
  }

  test(
    "random partitions: every aggregate over whole-partition frames (ROWS and RANGE), both evaluators") {
    checkRandom(cases, Seq(WholeRows, WholeRange), byK, sizes, seed = 31)
  }

  test("random partitions: every aggregate over running ROWS, both evaluators") {
    checkRandom(cases, Seq(RunningRows), byK, sizes, seed = 32)
  }

  test(
    "random partitions: every aggregate over running RANGE with ties and nulls in the key, both evaluators") {
    checkRandom(cases, Seq(RunningRange), byK, sizes, seed = 33)
  }

  test(
    "random partitions: running RANGE ordered by a double DESC (NaN, -0.0 and 0.0 peers), both evaluators") {
    checkRandom(cases, Seq(RunningRange), byDDesc, (0 to 40) ++ Seq(120), seed = 34)
  }

  test(
    "random partitions: aggregates over sliding ROWS frames (moving, shrinking, empty), both evaluators") {
    val exactOnes =
      Set("count(*)", "count(i)", "sum(i)", "sum(l)", "avg(i)", "min(s)", "max(d)", "max(ts)")
    assert(
      exactOnes.subsetOf(slidingCases.map(_.label).toSet),
      s"sliding frames should support ${exactOnes.mkString(", ")}; supported: ${slidingCases.map(_.label)}"
    )
    checkRandom(slidingCases, slidingFrames, byK, (0 to 24) ++ Seq(61, 150),
      seed = 35, close = slidingTolerance)
  }

  test(
    "random partitions: aggregates over RANGE frames (value offsets, peers, empty), both evaluators") {
    checkRandom(slidingCases, rangeFrames, byK, (0 to 24) ++ Seq(61, 150),
      seed = 36, close = slidingTolerance)
  }

  test(
    "exactFloats: sliding ROWS and RANGE frames fold in Spark's order, bit for bit, both evaluators") {
    val exact = new SQLConf
    exact.setConfString(FastWindowConf.EXACT_FLOATS.key, "true")
    SQLConf.withExistingConf(exact) {
      val inOrder = planOf(Seq(win(agg(sum(d)), byK.spec, slidingFrames.head.spark),
          win(agg(sum(l)), byK.spec, slidingFrames.head.spark)), byK.spec).functions
      assert(inOrder.map { case a: AggregateSpec => a.inSparkOrder; case _ => false } == Seq(true,
          false),
        "only floating-point aggregates are folded in Spark's order")
      checkRandom(slidingCases, slidingFrames ++ rangeFrames, byK, (0 to 24) ++ Seq(61, 150),
        seed = 38)
    }
  }

  /** nth_value: the frame's offset-th row (offset-th non-null with IGNORE NULLS), else null. */
  private def refNth(offset: Int, ignoreNulls: Boolean)(vs: Seq[Any]): Any =
    (if (ignoreNulls) nonNull(vs) else vs).lift(offset - 1).orNull

  private val nthCases: Seq[AggCase] = Seq(
    AggCase("nth_value(i, 1)", NthValue(i, Literal(1), false), I, refNth(1, ignoreNulls = false)),
    AggCase("nth_value(s, 2)", NthValue(s, Literal(2), false), S, refNth(2, ignoreNulls = false)),
    AggCase("nth_value(d, 2) ignore nulls", NthValue(d, Literal(2), true), D,
      refNth(2, ignoreNulls = true)),
    AggCase("nth_value(bin, 3) ignore nulls", NthValue(bin, Literal(3), true), BIN,
      refNth(3, ignoreNulls = true))
  )

  test("random partitions: nth_value over sliding ROWS and RANGE frames, both evaluators") {
    checkRandom(nthCases, slidingFrames ++ rangeFrames, byK, (0 to 24) ++ Seq(61, 150), seed = 37)
  }

  test(
    "hand-computed: running RANGE gives peers one value; running ROWS does not; nulls are peers") {
    val keys = Seq[Any](null, null, 1, 1, 1, 2, 3, 3)
    val xs = Seq[Any](1, null, 2, 3, null, 4, 5, 6)
    val rows = keys.zip(xs).map { case (key, x) => rowWith(key, I -> x) }
    val res = results(
      Seq(
        sum(i) -> RunningRange,
        Count(i) -> RunningRange,
        Count(Literal(1)) -> RunningRange,
        sum(i) -> RunningRows,
        Count(Literal(1)) -> RunningRows,
        sum(i) -> WholeRange,
        Max(i) -> RunningRange
      ),
      rows
    )
    assert(res(0) == Seq(1L, 1L, 6L, 6L, 6L, 10L, 21L, 21L))
    assert(res(1) == Seq(1L, 1L, 3L, 3L, 3L, 4L, 6L, 6L))
    assert(res(2) == Seq(2L, 2L, 5L, 5L, 5L, 6L, 8L, 8L))
    assert(res(3) == Seq(1L, 1L, 3L, 6L, 6L, 10L, 15L, 21L))
    assert(res(4) == Seq(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L))
    assert(res(5) == Seq.fill(8)(21L))
    assert(res(6) == Seq(1, 1, 3, 3, 3, 4, 6, 6))
  }

  test("hand-computed: bigint sum wraps with ANSI off; int sum is a bigint") {
    val rows = Seq[(Any, Any)]((Long.MaxValue, Int.MaxValue), (1L, Int.MaxValue), (null, null),
      (-2L, Int.MinValue))
      .zipWithIndex.map { case ((x, y), j) => rowWith(j, L -> x, I -> y) }
    val res = results(Seq(sum(l) -> RunningRows, sum(l) -> WholeRows, sum(i) -> RunningRows,
        avg(l) -> RunningRows), rows)
    assert(res(0) == Seq(Long.MaxValue, Long.MinValue, Long.MinValue, Long.MaxValue - 1))
    assert(res(1) == Seq.fill(4)(Long.MaxValue - 1))
    assert(res(2) == Seq(2147483647L, 4294967294L, 4294967294L, 2147483646L))
    // avg(bigint) adds doubles: no wrapping
    val m = Long.MaxValue.toDouble
    assert(res(3) == Seq(m, (m + 1.0) / 2, (m + 1.0) / 2, (m + 1.0 - 2.0) / 3))
  }

  test("hand-computed: decimal sum overflow gives null with ANSI off, and later frames recover") {
    val nine = "90000000000000000000000000000000000000"
    val values = Seq(nine, nine, "-" + nine, "1", null)
    val rows = values.zipWithIndex.map { case (v, j) =>
      rowWith(j, BIG -> Option(v).map(decimal(_, 38, 0)).orNull)
    }
    val res = results(Seq(sum(big) -> RunningRows, sum(big) -> WholeRows, avg(big) -> RunningRows,
        Count(big) -> RunningRows), rows)
    val ninePlusOne = decimal("90000000000000000000000000000000000001", 38, 0)
    assert(res(0).map(Option(_).map(_.toString).orNull) ==
      Seq(nine, null, nine, ninePlusOne.toString, ninePlusOne.toString))
    assert(res(1).forall(v => same(v, ninePlusOne, DecimalType(38, 0))))
    // avg is decimal(38,4): 34 integer digits, so averages of ~9e37 do not fit
    assert(res(2) == Seq(null, null, null, null, null))
    assert(res(3) == Seq(1L, 2L, 3L, 4L, 4L))
  }

  test("hand-computed: decimal avg rounds HALF_UP (away from zero) at scale s+4") {
    for (sign <- Seq("", "-")) {
      val rows = (0 until 128).map(j =>
        rowWith(j, DEC -> decimal(if (j == 0) sign + "0.04" else "0.00", 10, 2)))
      val res =
        results(Seq(avg(dec) -> WholeRows, sum(dec) -> WholeRows, avg(dec) -> RunningRows), rows)
      // 0.04 / 128 = 0.0003125 exactly: a tie at the 7th digit
      assert(res(0).forall(v => same(v, decimal(sign + "0.000313", 14, 6), DecimalType(14, 6))))
      assert(res(1).forall(v => same(v, decimal(sign + "0.04", 20, 2), DecimalType(20, 2))))
      // running: 0.04/3 = 0.013333.., 0.04/6 = 0.0066666.. -> 0.006667
      assert(same(res(2)(2), decimal(sign + "0.013333", 14, 6), DecimalType(14, 6)))
      assert(same(res(2)(5), decimal(sign + "0.006667", 14, 6), DecimalType(14, 6)))
    }
  }

  test("hand-computed: NaN, infinities and -0.0 in sum, avg, min and max") {
    val xs =
      Seq[Any](-0.0, 0.0, null, Double.PositiveInfinity, Double.NaN, Double.NegativeInfinity, -0.0)
    val rows = xs.zipWithIndex.map { case (x, j) => rowWith(j, D -> x) }
    val res = results(Seq(sum(d) -> RunningRows, avg(d) -> RunningRows, Min(d) -> RunningRows,
        Max(d) -> RunningRows, Min(d) -> WholeRows, Max(d) -> WholeRows), rows)
    def check(got: Seq[Any], want: Seq[Any], what: String): Unit =
      assert(got.zip(want).forall { case (g, w) => same(g, w, DoubleType) } && got.size == want.size,
        s"$what: got $got, want $want")
    val inf = Double.PositiveInfinity
    // sum starts from 0.0: 0.0 + -0.0 is 0.0
    check(res(0), Seq(0.0, 0.0, 0.0, inf, Double.NaN, Double.NaN, Double.NaN), "sum")
    check(res(1), Seq(0.0, 0.0, 0.0, inf, Double.NaN, Double.NaN, Double.NaN), "avg")
    // -0.0 and 0.0 are equal: the first one seen is kept
    check(res(2),
      Seq(-0.0, -0.0, -0.0, -0.0, -0.0, Double.NegativeInfinity, Double.NegativeInfinity), "min")
    check(res(3), Seq(-0.0, -0.0, -0.0, inf, Double.NaN, Double.NaN, Double.NaN), "max")
    check(res(4), Seq.fill(7)(Double.NegativeInfinity), "whole min")
    check(res(5), Seq.fill(7)(Double.NaN), "whole max")
  }

  test("hand-computed: min and max of strings, dates, timestamps and decimals") {
    def str(v: String) = UTF8String.fromString(v)
    val rows = Seq(
      rowWith(0, S -> str("b"), DT -> 19000, TS -> 5L, DEC -> decimal("1.50", 10, 2)),
      rowWith(1, S -> str("ab"), DT -> null, TS -> -7L, DEC -> decimal("-1.50", 10, 2)),
      rowWith(2, S -> str("\u00e9"), DT -> 18999, TS -> null, DEC -> null),
      rowWith(3, S -> null, DT -> 19001, TS -> 6L, DEC -> decimal("1.51", 10, 2)),
      rowWith(4, S -> str(""), DT -> 19000, TS -> 6L, DEC -> decimal("-1.49", 10, 2))
    )
    val res = results(
      Seq(
        Min(s) -> RunningRows,
        Max(s) -> RunningRows,
        Min(dt) -> RunningRows,
        Max(dt) -> WholeRows,
        Min(ts) -> RunningRows,
        Max(ts) -> RunningRows,
        Min(dec) -> WholeRows,
        Max(dec) -> RunningRows
      ),
      rows
    )
    assert(res(0).map(String.valueOf) == Seq("b", "ab", "ab", "ab", ""))
    assert(res(1).map(String.valueOf) == Seq("b", "b", "\u00e9", "\u00e9",
      "\u00e9")) // UTF-8 bytes order
    assert(res(2) == Seq(19000, 19000, 18999, 18999, 18999))
    assert(res(3) == Seq.fill(5)(19001))
    assert(res(4) == Seq(5L, -7L, -7L, -7L, -7L))
    assert(res(5) == Seq(5L, 5L, 5L, 6L, 6L))
    assert(res(6).forall(v => same(v, decimal("-1.50", 10, 2), DecimalType(10, 2))))
    assert(res(7).map(_.toString) == Seq("1.50", "1.50", "1.50", "1.51", "1.51"))
  }

  test("hand-computed: empty, one-row and all-null partitions") {
    val fns: Seq[(AggregateFunction, RefFrame)] = Seq(
      Count(i) -> RunningRows,
      Count(Literal(1)) -> WholeRows,
      sum(i) -> RunningRange,
      avg(d) -> WholeRows,
      Min(s) -> RunningRows,
      sum(dec) -> WholeRange,
      Max(ts) -> RunningRange
    )
    assert(results(fns, Nil) == IndexedSeq.fill(fns.size)(Nil))
    val one = results(fns,
      Seq(rowWith(null, I -> 5, D -> 2.5, S -> UTF8String.fromString("x"),
          DEC -> decimal("3.25", 10, 2), TS -> 9L)))
    assert(one.map(_.size) == Seq.fill(fns.size)(1))
    assert(one(0) == Seq(1L) && one(1) == Seq(1L) && one(2) == Seq(5L) && one(3) == Seq(2.5))
    assert(one(4).map(String.valueOf) == Seq("x") && one(6) == Seq(9L))
    assert(same(one(5).head, decimal("3.25", 20, 2), DecimalType(20, 2)))
    val allNull = results(fns, Seq.fill(3)(rowWith(1)))
    assert(allNull(0) == Seq(0L, 0L, 0L))
    assert(allNull(1) == Seq(3L, 3L, 3L))
    assert(allNull.drop(2).forall(_ == Seq(null, null, null)))
  }

  test(
    "hand-computed: inputs that are expressions, shared expressions and constants (no columns at all)") {
    val xs = Seq[Any](1, null, 3, 4)
    val rows = xs.zipWithIndex.map { case (x, j) =>
      rowWith(j, I -> x, S -> UTF8String.fromString("ab" * j))
    }
    val doubled = Multiply(i, Literal(2))
    val res = results(Seq(
        sum(doubled) -> RunningRows, Max(doubled) -> WholeRows, Count(doubled) -> RunningRange,
        Max(Length(s)) -> RunningRows, Min(Upper(s)) -> WholeRows), rows)
    assert(res(0) == Seq(2L, 2L, 8L, 16L))
    assert(res(1) == Seq.fill(4)(8))
    assert(res(2) == Seq(1L, 1L, 2L, 3L))
    assert(res(3) == Seq(0, 2, 4, 6))
    assert(res(4).map(String.valueOf) == Seq.fill(4)(""))
    // only constant inputs: the evaluator buffers no column at all
    val constants = results(Seq(sum(Literal(1)) -> RunningRows, avg(Literal(2.5)) -> WholeRows,
        Count(Literal(1)) -> WholeRange, Min(Literal.create(null, IntegerType)) -> RunningRows),
      rows)
    assert(constants(0) == Seq(1L, 2L, 3L, 4L))
    assert(constants(1) == Seq.fill(4)(2.5))
    assert(constants(2) == Seq.fill(4)(4L))
    assert(constants(3) == Seq.fill(4)(null))
  }

  test("hand-computed: sliding ROWS frames, including empty frames (count 0, sum null)") {
    val xs = Seq[Any](1, 2, null, 4, 5)
    val rows = xs.zipWithIndex.map { case (x, j) => rowWith(j, I -> x) }
    val res = results(
      Seq(
        sum(i) -> SlidingRows(Some(-1), Some(0)),
        Count(i) -> SlidingRows(Some(-3), Some(-2)),
        sum(i) -> SlidingRows(Some(-3), Some(-2)),
        Max(i) -> SlidingRows(Some(0), None),
        Count(Literal(1)) -> SlidingRows(Some(1), Some(2))
      ),
      rows
    )
    assert(res(0) == Seq(1L, 3L, 2L, 4L, 9L))
    assert(res(1) == Seq(0L, 0L, 1L, 2L, 1L))
    assert(res(2) == Seq(null, null, 1L, 3L, 2L))
    assert(res(3) == Seq(5, 5, 5, 5, 5))
    assert(res(4) == Seq(2L, 2L, 2L, 1L, 0L))
  }

}
