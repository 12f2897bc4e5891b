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
import fastwindow.kernels.AggregateKernelSuite._

/**
 * count, count(*), sum, avg, min and max over whole-partition, running ROWS and running RANGE
 * frames (and the sliding ROWS frames), on both evaluators, against a naive reference computed
 * here: for every row, collect the rows of its frame by the frame's textbook definition (O(n^2)),
 * then fold their values in row order.
 *
 * The reference never calls fastwindow or Spark's aggregate expressions. It encodes Spark's
 * documented semantics with ANSI mode off, each of which was checked against Spark 4.3's own
 * WindowExec (plain pyspark, `spark.sql.ansi.enabled=false`) when this suite was written:
 *  - sum of integral types is a bigint that wraps silently on overflow; sum of doubles (and of
 *    floats, cast to double) adds the values in row order starting from 0.0 (so the sum of a
 *    single -0.0 is 0.0);
 *  - sum of decimal(p,s) is exact, of type decimal(min(38,p+10),s), and null when the frame's
 *    exact sum does not fit that type (an overflow of an earlier, smaller frame does not stick);
 *  - avg of non-decimals is the double sum (values cast to double, added in row order from 0.0)
 *    divided by the count; avg of decimal(p,s) is the exact sum divided by the count, rounded
 *    HALF_UP to scale s+4 in type decimal(min(38,p+4),min(38,s+4)), null when it does not fit;
 *  - min/max skip nulls; NaN is larger than every double; -0.0 and 0.0 compare equal and the
 *    first of equal values in row order is kept; strings and binary compare as unsigned bytes;
 *  - empty frames and all-null frames give null, count gives 0; count(*) counts null rows.
 * With ANSI mode on, sum raises Spark's arithmetic error instead: for bigint as soon as a partial
 * sum of a frame (in row order from the frame's first row) overflows, for decimals when the
 * frame's exact sum does not fit (also checked against Spark 4.3 with ANSI on).
 *
 * Sliding ROWS frames combine partial aggregates in another order than Spark's row-by-row loop;
 * for them double sums and averages are compared within the documented tolerance (1e-12 times the
 * sum of |x| over the frame; NaN and infinities exactly), everything else exactly.
 */
class AggregateKernelSuite extends AnyFunSuite {

  // Input columns (schema index = constant below).
  private val K = 0; private val I = 1; private val L = 2; private val D = 3; private val F = 4
  private val DEC = 5; private val BIG = 6; private val S = 7; private val DT = 8; private val TS = 9
  private val BIN = 10

  private val k = attr("k", IntegerType)
  private val i = attr("i", IntegerType)
  private val l = attr("l", LongType)
  private val d = attr("d", DoubleType)
  private val f = attr("f", FloatType)
  private val dec = attr("dec", DecimalType(10, 2))
  private val big = attr("big", DecimalType(38, 0))
  private val s = attr("s", StringType)
  private val dt = attr("dt", DateType)
  private val ts = attr("ts", TimestampType)
  private val bin = attr("bin", BinaryType)
  private val schema = Seq(k, i, l, d, f, dec, big, s, dt, ts, bin)

  private val legacy = NumericEvalContext(EvalMode.LEGACY)
  private val ansi = NumericEvalContext(EvalMode.ANSI)
  private def sum(e: Expression): Sum = Sum(e, legacy)
  private def avg(e: Expression): Average = Average(e, EvalMode.LEGACY)

  // ---------------------------------------------------------------------------------------------
  // The reference

  /** Spark's order of values, written out independently of Spark's orderings. */
  private object Cmp {
    def double(a: Double, b: Double): Int =
      if (a.isNaN) { if (b.isNaN) 0 else 1 }
      else if (b.isNaN) -1
      else if (a < b) -1
      else if (a > b) 1
      else 0 // includes -0.0 vs 0.0

    def bytes(a: Array[Byte], b: Array[Byte]): Int = {
      var j = 0
      while (j < a.length && j < b.length) {
        val c = Integer.compare(a(j) & 0xff, b(j) & 0xff)
        if (c != 0) return c
        j += 1
      }
      Integer.compare(a.length, b.length)
    }

    def of(dataType: DataType): (Any, Any) => Int = dataType match {
      case IntegerType | DateType => (a, b) => Integer.compare(a.asInstanceOf[Int], b.asInstanceOf[Int])
      case LongType | TimestampType =>
        (a, b) => java.lang.Long.compare(a.asInstanceOf[Long], b.asInstanceOf[Long])
      case DoubleType => (a, b) => double(a.asInstanceOf[Double], b.asInstanceOf[Double])
      case FloatType => (a, b) => double(a.asInstanceOf[Float].toDouble, b.asInstanceOf[Float].toDouble)
      case _: DecimalType =>
        (a, b) => a.asInstanceOf[Decimal].toJavaBigDecimal.compareTo(b.asInstanceOf[Decimal].toJavaBigDecimal)
      case _: StringType =>
        (a, b) => bytes(a.asInstanceOf[UTF8String].getBytes, b.asInstanceOf[UTF8String].getBytes)
      case BinaryType => (a, b) => bytes(a.asInstanceOf[Array[Byte]], b.asInstanceOf[Array[Byte]])
      case other => throw new IllegalArgumentException(s"no reference order for $other")
    }
  }

  private def nonNull(vs: Seq[Any]): Seq[Any] = vs.filter(_ != null)

  private def asLong(v: Any): Long = v match {
    case x: Int => x.toLong
    case x: Long => x
  }
  private def asDouble(v: Any): Double = v match {
    case x: Int => x.toDouble
    case x: Long => x.toDouble
    case x: Float => x.toDouble
    case x: Double => x
  }
  private def asBigDecimal(v: Any): JBigDecimal = v.asInstanceOf[Decimal].toJavaBigDecimal

  private def refCount(vs: Seq[Any]): Any = nonNull(vs).size.toLong

  private def refSumLong(vs: Seq[Any]): Any = {
    val xs = nonNull(vs)
    if (xs.isEmpty) null else xs.foldLeft(0L)((acc, x) => acc + asLong(x)) // wraps
  }

  private def refSumDouble(vs: Seq[Any]): Any = {
    val xs = nonNull(vs)
    if (xs.isEmpty) null else xs.foldLeft(0.0)((acc, x) => acc + asDouble(x))
  }

  private def refAvgDouble(vs: Seq[Any]): Any = {
    val xs = nonNull(vs)
    if (xs.isEmpty) null else xs.foldLeft(0.0)((acc, x) => acc + asDouble(x)) / xs.size
  }

  /** `v` as a decimal(precision, scale), or null when it does not fit. */
  private def fit(v: JBigDecimal, precision: Int, scale: Int): Any = {
    val scaled = v.setScale(scale, RoundingMode.UNNECESSARY)
    if (scaled.abs.compareTo(JBigDecimal.TEN.pow(precision - scale)) >= 0) null
    else Decimal(scaled, precision, scale)
  }

  private def refSumDecimal(precision: Int, scale: Int)(vs: Seq[Any]): Any = {
    val xs = nonNull(vs)
    if (xs.isEmpty) null
    else fit(xs.foldLeft(JBigDecimal.ZERO)((acc, x) => acc.add(asBigDecimal(x))), precision, scale)
  }

  private def refAvgDecimal(precision: Int, scale: Int)(vs: Seq[Any]): Any = {
    val xs = nonNull(vs)
    if (xs.isEmpty) null
    else {
      val total = xs.foldLeft(JBigDecimal.ZERO)((acc, x) => acc.add(asBigDecimal(x)))
      fit(total.divide(new JBigDecimal(xs.size), scale, RoundingMode.HALF_UP), precision, scale)
    }
  }

  /** The first value that no later value beats (strictly) under `better`. */
  private def refExtreme(better: Int => Boolean, cmp: (Any, Any) => Int)(vs: Seq[Any]): Any =
    nonNull(vs).foldLeft(null: Any)((cur, x) => if (cur == null || better(cmp(x, cur))) x else cur)

  private def refMin(dataType: DataType): Seq[Any] => Any = refExtreme(_ < 0, Cmp.of(dataType))
  private def refMax(dataType: DataType): Seq[Any] => Any = refExtreme(_ > 0, Cmp.of(dataType))

  private val minMaxColumns = Seq(I -> i, L -> l, D -> d, F -> f, DEC -> dec, BIG -> big, S -> s,
    DT -> dt, TS -> ts, BIN -> bin)

  private val cases: Seq[AggCase] = Seq(
    AggCase("count(*)", Count(Literal(1)), K, vs => vs.size.toLong),
    AggCase("count(i)", Count(i), I, refCount),
    AggCase("count(s)", Count(s), S, refCount),
    AggCase("count(d)", Count(d), D, refCount),
    AggCase("sum(i)", sum(i), I, refSumLong),
    AggCase("sum(l)", sum(l), L, refSumLong),
    AggCase("sum(d)", sum(d), D, refSumDouble, exactWhenSliding = false),
    AggCase("sum(f)", sum(f), F, refSumDouble, exactWhenSliding = false),
    AggCase("sum(dec)", sum(dec), DEC, refSumDecimal(20, 2)),
    AggCase("sum(big)", sum(big), BIG, refSumDecimal(38, 0)),
    AggCase("avg(i)", avg(i), I, refAvgDouble),
    AggCase("avg(l)", avg(l), L, refAvgDouble, exactWhenSliding = false),
    AggCase("avg(d)", avg(d), D, refAvgDouble, exactWhenSliding = false),
    AggCase("avg(f)", avg(f), F, refAvgDouble, exactWhenSliding = false),
    AggCase("avg(dec)", avg(dec), DEC, refAvgDecimal(14, 6)),
    AggCase("avg(big)", avg(big), BIG, refAvgDecimal(38, 4))
  ) ++ minMaxColumns.flatMap { case (index, a) =>
    Seq(AggCase(s"min(${a.name})", Min(a), index, refMin(a.dataType)),
      AggCase(s"max(${a.name})", Max(a), index, refMax(a.dataType)))
  }

  private val slidingFrames: Seq[SlidingRows] = Seq(
    SlidingRows(Some(-2), Some(0)),
    SlidingRows(Some(-1), Some(1)),
    SlidingRows(Some(-5), Some(-2)),   // empty at the start
    SlidingRows(Some(1), Some(3)),     // empty at the end
    SlidingRows(Some(0), Some(0)),
    SlidingRows(None, Some(-2)),
    SlidingRows(None, Some(1)),
    SlidingRows(Some(-2), None),
    SlidingRows(Some(0), None),        // shrinking
    SlidingRows(Some(-1000), Some(1000)),
    SlidingRows(Some(-Int.MaxValue), Some(Int.MaxValue - 1)))

  // ---------------------------------------------------------------------------------------------
  // Random partitions

  private def nullsFirst(c: (Any, Any) => Int): (Any, Any) => Int = (a, b) =>
    if (a == null) { if (b == null) 0 else -1 } else if (b == null) 1 else c(a, b)
  private def descNullsLast(c: (Any, Any) => Int): (Any, Any) => Int = (a, b) =>
    if (a == null) { if (b == null) 0 else 1 } else if (b == null) -1 else c(b, a)

  private def value(r: InternalRow, index: Int): Any =
    if (r.isNullAt(index)) null else r.get(index, schema(index).dataType)

  private val byK = Order(Seq(asc(k)), value(_, K), nullsFirst(Cmp.of(IntegerType)))
  private val byDDesc = Order(Seq(desc(d)), value(_, D), descNullsLast(Cmp.of(DoubleType)))

  private val bigDecimals = Seq("90000000000000000000000000000000000000",
    "-90000000000000000000000000000000000000", "50000000000000000000000000000000000000",
    "-50000000000000000000000000000000000000", "99999999999999999999999999999999999999",
    "1", "-1", "0").map(v => Decimal(new JBigDecimal(v), 38, 0))

  private def randomRow(r: Random, shape: Shape, keyShape: Shape): InternalRow = {
    // bigints near the limits, so that sums wrap
    val longValue: Any =
      if (r.nextDouble() < shape.nullFraction) null
      else if (r.nextDouble() < shape.specialFraction) {
        Seq(Long.MaxValue, Long.MinValue, Long.MaxValue / 2 + 1, -1L)(r.nextInt(4))
      } else randomValue(LongType, r, shape.copy(nullFraction = 0))
    // decimal(38,0) values whose sums overflow (and come back into range)
    val bigValue: Any =
      if (r.nextDouble() < shape.nullFraction) null
      else if (r.nextDouble() < shape.specialFraction * 2) bigDecimals(r.nextInt(bigDecimals.size))
      else randomValue(DecimalType(38, 0), r, shape.copy(nullFraction = 0))
    row(
      randomValue(IntegerType, r, keyShape),
      randomValue(IntegerType, r, shape),
      longValue,
      randomValue(DoubleType, r, shape),
      randomValue(FloatType, r, shape),
      randomValue(DecimalType(10, 2), r, shape),
      bigValue,
      randomValue(StringType, r, shape),
      randomValue(DateType, r, shape),
      randomValue(TimestampType, r, shape),
      randomValue(BinaryType, r, shape))
  }

  /** A partition of n random rows sorted by `order`, with ties and nulls in the order key. */
  private def randomPartition(r: Random, n: Int, order: Order): IndexedSeq[InternalRow] = {
    val shape = randomShape(r, n)
    val keyShape = Shape(1 + r.nextInt(1 + n / 2), if (r.nextBoolean()) 0.0 else 0.15, 0.0)
    Vector.fill(n)(randomRow(r, shape, keyShape)).sortWith((a, b) => order.rowOrdering.lt(a, b))
  }

  private def layoutFor(cs: Seq[AggCase], frame: RefFrame, order: Order): TestPlan =
    layoutOf(cs.map(c => win(windowFunction(c.function), order.spec, frame.spark)), order.spec,
      schema)

  /** As the analyzer writes it: aggregates in an AggregateExpression, window functions bare. */
  private def windowFunction(f: AggregateFunction): Expression = f match {
    case w: AggregateWindowFunction => w
    case other => agg(other)
  }

  /** Per row, per case: the frame's values of the case's column fed to its reference. */
  private def expected(cs: Seq[AggCase], frame: RefFrame, order: Order, rows: IndexedSeq[InternalRow]): Results = {
    val n = rows.size
    val keys = rows.map(order.keyOf)
    val keyCmp = (a: Int, b: Int) => order.cmp(keys(a), keys(b))
    rows.indices.map { row =>
      val members = frame.members(row, n, keyCmp, keys)
      cs.map(c => c.reference(members.map(j => value(rows(j), c.input)))).toIndexedSeq
    }
  }

  /**
   * Random partitions of the given sizes (shuffled, so evaluators are reused across large and
   * small partitions) for every frame, on both evaluators, compared exactly with the reference.
   */
  private def checkRandom(
      cs: Seq[AggCase],
      frames: Seq[RefFrame],
      order: Order,
      sizes: Seq[Int],
      seed: Long,
      close: (AggCase, Double, Double, Seq[Any]) => Boolean = (_, _, _, _) => false): Unit = {
    val r = new Random(seed)
    val feed = unsafeFeed(schema)
    for (frame <- frames) {
      val layout = layoutFor(cs, frame, order)
      val evaluators = flavors.map(fl => fl -> fl.create(layout))
      for (n <- r.shuffle(sizes)) {
        val rows = randomPartition(r, n, order)
        val exp = expected(cs, frame, order, rows)
        for ((flavor, ev) <- evaluators) {
          val act = runPartition(ev, layout, rows, feed)
          // Exact comparison, except where `close` accepts a double result (sliding frames).
          val tolerated = exp.indices.map { row =>
            cs.indices.map { c =>
              (exp(row)(c), act(row)(c)) match {
                case (e: Double, a: Double) if !same(e, a, DoubleType) =>
                  val keys = rows.map(order.keyOf)
                  val members = frame.members(row, n, (x, y) => order.cmp(keys(x), keys(y)), keys)
                  if (close(cs(c), e, a, members.map(j => value(rows(j), cs(c).input)))) e else a
                case (_, a) => a
              }
            }
          }
          firstDifference(exp, tolerated, layout, rows, schema).foreach { diff =>
            fail(s"[$flavor, $frame, n=$n, seed=$seed] $diff")
          }
        }
      }
    }
  }

  private val sizes: Seq[Int] = (0 to 64) ++ Seq(100, 157, 300)

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

  test("random partitions: every aggregate over whole-partition frames (ROWS and RANGE), both evaluators") {
    checkRandom(cases, Seq(WholeRows, WholeRange), byK, sizes, seed = 31)
  }

  test("random partitions: every aggregate over running ROWS, both evaluators") {
    checkRandom(cases, Seq(RunningRows), byK, sizes, seed = 32)
  }

  test("random partitions: every aggregate over running RANGE with ties and nulls in the key, both evaluators") {
    checkRandom(cases, Seq(RunningRange), byK, sizes, seed = 33)
  }

  test("random partitions: running RANGE ordered by a double DESC (NaN, -0.0 and 0.0 peers), both evaluators") {
    checkRandom(cases, Seq(RunningRange), byDDesc, (0 to 40) ++ Seq(120), seed = 34)
  }

  /** The documented tolerance for double sums and averages over sliding frames. */
  private def slidingTolerance(c: AggCase, e: Double, a: Double, frameValues: Seq[Any]): Boolean = {
    val xs = nonNull(frameValues).map(asDouble)
    if (c.exactWhenSliding || e.isNaN || e.isInfinite || a.isNaN || a.isInfinite) false
    else {
      val scale = xs.map(math.abs).sum / (if (c.label.startsWith("avg")) xs.size else 1)
      math.abs(e - a) <= 1e-12 * scale
    }
  }

  /** The cases [[fastwindow.functions.WindowSupport]] accepts over every sliding frame. */
  private lazy val slidingCases: Seq[AggCase] = cases.filter { c =>
    slidingFrames.forall(fr => check(Seq(win(windowFunction(c.function), byK.spec, fr.spark)), byK.spec).isRight)
  }

  test("random partitions: aggregates over sliding ROWS frames (moving, shrinking, empty), both evaluators") {
    val exactOnes = Set("count(*)", "count(i)", "sum(i)", "sum(l)", "avg(i)", "min(s)", "max(d)", "max(ts)")
    assert(exactOnes.subsetOf(slidingCases.map(_.label).toSet),
      s"sliding frames should support ${exactOnes.mkString(", ")}; supported: ${slidingCases.map(_.label)}")
    checkRandom(slidingCases, slidingFrames, byK, (0 to 24) ++ Seq(61, 150),
      seed = 35, close = slidingTolerance)
  }

  private val rangeFrames: Seq[RefFrame] = Seq(
    ValueRange(Some(-2), Some(1)), ValueRange(Some(-3), Some(0)), ValueRange(Some(0), Some(0)),
    ValueRange(Some(-5), Some(-2)), ValueRange(Some(1), Some(4)),  // before / after the row's key
    ValueRange(None, Some(2)), ValueRange(Some(-1), None), ValueRange(Some(3), None),
    ValueRange(None, Some(-3)), PeersRange(toEnd = true), PeersRange(toEnd = false))

  test("random partitions: aggregates over RANGE frames (value offsets, peers, empty), both evaluators") {
    checkRandom(slidingCases, rangeFrames, byK, (0 to 24) ++ Seq(61, 150),
      seed = 36, close = slidingTolerance)
  }

  /** nth_value: the frame's offset-th row (offset-th non-null with IGNORE NULLS), else null. */
  private def refNth(offset: Int, ignoreNulls: Boolean)(vs: Seq[Any]): Any =
    (if (ignoreNulls) nonNull(vs) else vs).lift(offset - 1).orNull

  private val nthCases: Seq[AggCase] = Seq(
    AggCase("nth_value(i, 1)", NthValue(i, Literal(1), false), I, refNth(1, ignoreNulls = false)),
    AggCase("nth_value(s, 2)", NthValue(s, Literal(2), false), S, refNth(2, ignoreNulls = false)),
    AggCase("nth_value(d, 2) ignore nulls", NthValue(d, Literal(2), true), D, refNth(2, ignoreNulls = true)),
    AggCase("nth_value(bin, 3) ignore nulls", NthValue(bin, Literal(3), true), BIN,
      refNth(3, ignoreNulls = true)))

  test("random partitions: nth_value over sliding ROWS and RANGE frames, both evaluators") {
    checkRandom(nthCases, slidingFrames ++ rangeFrames, byK, (0 to 24) ++ Seq(61, 150), seed = 37)
  }

  // ---------------------------------------------------------------------------------------------
  // Hand-computed cases (they also guard the reference)

  /** Results of `functions` over `rows` on both evaluators, which must agree; by function. */
  private def results(
      functions: Seq[(AggregateFunction, RefFrame)],
      rows: Seq[InternalRow],
      order: Order = byK): IndexedSeq[Seq[Any]] = {
    val exprs = functions.map { case (fn, frame) => win(agg(fn), order.spec, frame.spark) }
    val layout = layoutOf(exprs, order.spec, schema)
    val all = flavors.map(fl => runPartition(fl.create(layout), layout, rows, unsafeFeed(schema)))
    firstDifference(all(0), all(1), layout, rows, schema).foreach(diff => fail(s"twins differ: $diff"))
    functions.indices.map(c => all(0).map(_(c)))
  }

  /** A row with key `key` and the given column values (schema index -> value). */
  private def rowWith(key: Any, values: (Int, Any)*): InternalRow = {
    val vs = Array.fill[Any](schema.size)(null)
    vs(K) = key
    values.foreach { case (index, v) => vs(index) = v }
    new GenericInternalRow(vs)
  }

  private def decimal(v: String, p: Int, sc: Int): Decimal = Decimal(new JBigDecimal(v), p, sc)

  test("hand-computed: running RANGE gives peers one value; running ROWS does not; nulls are peers") {
    val keys = Seq[Any](null, null, 1, 1, 1, 2, 3, 3)
    val xs = Seq[Any](1, null, 2, 3, null, 4, 5, 6)
    val rows = keys.zip(xs).map { case (key, x) => rowWith(key, I -> x) }
    val res = results(Seq(
      sum(i) -> RunningRange, Count(i) -> RunningRange, Count(Literal(1)) -> RunningRange,
      sum(i) -> RunningRows, Count(Literal(1)) -> RunningRows, sum(i) -> WholeRange,
      Max(i) -> RunningRange), rows)
    assert(res(0) == Seq(1L, 1L, 6L, 6L, 6L, 10L, 21L, 21L))
    assert(res(1) == Seq(1L, 1L, 3L, 3L, 3L, 4L, 6L, 6L))
    assert(res(2) == Seq(2L, 2L, 5L, 5L, 5L, 6L, 8L, 8L))
    assert(res(3) == Seq(1L, 1L, 3L, 6L, 6L, 10L, 15L, 21L))
    assert(res(4) == Seq(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L))
    assert(res(5) == Seq.fill(8)(21L))
    assert(res(6) == Seq(1, 1, 3, 3, 3, 4, 6, 6))
  }

  test("hand-computed: bigint sum wraps with ANSI off; int sum is a bigint") {
    val rows = Seq[(Any, Any)]((Long.MaxValue, Int.MaxValue), (1L, Int.MaxValue), (null, null), (-2L, Int.MinValue))
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
      val rows = (0 until 128).map(j => rowWith(j, DEC -> decimal(if (j == 0) sign + "0.04" else "0.00", 10, 2)))
      val res = results(Seq(avg(dec) -> WholeRows, sum(dec) -> WholeRows, avg(dec) -> RunningRows), rows)
      // 0.04 / 128 = 0.0003125 exactly: a tie at the 7th digit
      assert(res(0).forall(v => same(v, decimal(sign + "0.000313", 14, 6), DecimalType(14, 6))))
      assert(res(1).forall(v => same(v, decimal(sign + "0.04", 20, 2), DecimalType(20, 2))))
      // running: 0.04/3 = 0.013333.., 0.04/6 = 0.0066666.. -> 0.006667
      assert(same(res(2)(2), decimal(sign + "0.013333", 14, 6), DecimalType(14, 6)))
      assert(same(res(2)(5), decimal(sign + "0.006667", 14, 6), DecimalType(14, 6)))
    }
  }

  test("hand-computed: NaN, infinities and -0.0 in sum, avg, min and max") {
    val xs = Seq[Any](-0.0, 0.0, null, Double.PositiveInfinity, Double.NaN, Double.NegativeInfinity, -0.0)
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
    check(res(2), Seq(-0.0, -0.0, -0.0, -0.0, -0.0, Double.NegativeInfinity, Double.NegativeInfinity), "min")
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
      rowWith(4, S -> str(""), DT -> 19000, TS -> 6L, DEC -> decimal("-1.49", 10, 2)))
    val res = results(Seq(Min(s) -> RunningRows, Max(s) -> RunningRows, Min(dt) -> RunningRows,
      Max(dt) -> WholeRows, Min(ts) -> RunningRows, Max(ts) -> RunningRows, Min(dec) -> WholeRows,
      Max(dec) -> RunningRows), rows)
    assert(res(0).map(String.valueOf) == Seq("b", "ab", "ab", "ab", ""))
    assert(res(1).map(String.valueOf) == Seq("b", "b", "\u00e9", "\u00e9", "\u00e9")) // UTF-8 bytes order
    assert(res(2) == Seq(19000, 19000, 18999, 18999, 18999))
    assert(res(3) == Seq.fill(5)(19001))
    assert(res(4) == Seq(5L, -7L, -7L, -7L, -7L))
    assert(res(5) == Seq(5L, 5L, 5L, 6L, 6L))
    assert(res(6).forall(v => same(v, decimal("-1.50", 10, 2), DecimalType(10, 2))))
    assert(res(7).map(_.toString) == Seq("1.50", "1.50", "1.50", "1.51", "1.51"))
  }

  test("hand-computed: empty, one-row and all-null partitions") {
    val fns: Seq[(AggregateFunction, RefFrame)] = Seq(Count(i) -> RunningRows,
      Count(Literal(1)) -> WholeRows, sum(i) -> RunningRange, avg(d) -> WholeRows,
      Min(s) -> RunningRows, sum(dec) -> WholeRange, Max(ts) -> RunningRange)
    assert(results(fns, Nil) == IndexedSeq.fill(fns.size)(Nil))
    val one = results(fns, Seq(rowWith(null, I -> 5, D -> 2.5, S -> UTF8String.fromString("x"),
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

  test("hand-computed: inputs that are expressions, shared expressions and constants (no columns at all)") {
    val xs = Seq[Any](1, null, 3, 4)
    val rows = xs.zipWithIndex.map { case (x, j) => rowWith(j, I -> x, S -> UTF8String.fromString("ab" * j)) }
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
      Count(Literal(1)) -> WholeRange, Min(Literal.create(null, IntegerType)) -> RunningRows), rows)
    assert(constants(0) == Seq(1L, 2L, 3L, 4L))
    assert(constants(1) == Seq.fill(4)(2.5))
    assert(constants(2) == Seq.fill(4)(4L))
    assert(constants(3) == Seq.fill(4)(null))
  }

  test("hand-computed: sliding ROWS frames, including empty frames (count 0, sum null)") {
    val xs = Seq[Any](1, 2, null, 4, 5)
    val rows = xs.zipWithIndex.map { case (x, j) => rowWith(j, I -> x) }
    val res = results(Seq(
      sum(i) -> SlidingRows(Some(-1), Some(0)),
      Count(i) -> SlidingRows(Some(-3), Some(-2)),
      sum(i) -> SlidingRows(Some(-3), Some(-2)),
      Max(i) -> SlidingRows(Some(0), None),
      Count(Literal(1)) -> SlidingRows(Some(1), Some(2))), rows)
    assert(res(0) == Seq(1L, 3L, 2L, 4L, 9L))
    assert(res(1) == Seq(0L, 0L, 1L, 2L, 1L))
    assert(res(2) == Seq(null, null, 1L, 3L, 2L))
    assert(res(3) == Seq(5, 5, 5, 5, 5))
    assert(res(4) == Seq(2L, 2L, 2L, 1L, 0L))
  }

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

  test("random partitions, ANSI mode: a partition fails iff some frame overflows as in Spark, else exact results") {
    val ansiCases = Seq(
      AggCase("sum(l) ANSI", Sum(l, ansi), L, refAnsiSumLong),
      AggCase("sum(big) ANSI", Sum(big, ansi), BIG, refAnsiSumDecimal(38, 0)))
    val frames: Seq[RefFrame] = Seq(WholeRows, RunningRows, RunningRange) ++ slidingFrames
    val r = new Random(36)
    var outcomes = Map.empty[Boolean, Int].withDefaultValue(0)
    for (c <- ansiCases; frame <- frames) {
      val supported = check(Seq(win(windowFunction(c.function), byK.spec, frame.spark)), byK.spec).isRight
      assert(supported || frame.isInstanceOf[SlidingRows], s"${c.label} over $frame must be supported")
      if (supported) {
        val layout = layoutFor(Seq(c), frame, byK)
        val evaluators = scala.collection.mutable.Map(flavors.map(fl => fl -> fl.create(layout)): _*)
        for (n <- r.shuffle((0 to 30).toVector ++ Seq(80))) {
          val rows = randomPartition(r, n, byK)
          val exp = expected(Seq(c), frame, byK, rows)
          val overflows = exp.exists(_.contains(Overflow))
          outcomes += overflows -> (outcomes(overflows) + 1)
          for (flavor <- flavors) {
            scala.util.Try(runPartition(evaluators(flavor), layout, rows)) match {
              case scala.util.Success(act) =>
                if (overflows) {
                  fail(s"[$flavor, ${c.label}, $frame, n=$n] expected an overflow error, got results " +
                    exp.zip(act).map { case (e, a) => s"expected=${e.head} actual=${a.head}" }.mkString("\n  ", "\n  ", ""))
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
    assert(outcomes(true) > 20 && outcomes(false) > 20, s"too few partitions of one kind: $outcomes")
  }

  test("random partitions, TRY mode (try_sum): null from the first overflowing partial sum of a frame, both evaluators") {
    val tryMode = NumericEvalContext(EvalMode.TRY)
    val tryCases = Seq(
      AggCase("try_sum(l)", Sum(l, tryMode), L, refTrySumLong),
      AggCase("try_sum(big)", Sum(big, tryMode), BIG, refSumDecimal(38, 0)))
    val frames = (Seq(WholeRows, RunningRows, RunningRange) ++ slidingFrames).filter { frame =>
      val supported = tryCases.forall(c => check(Seq(win(windowFunction(c.function), byK.spec, frame.spark)), byK.spec).isRight)
      assert(supported || frame.isInstanceOf[SlidingRows], s"try_sum over $frame must be supported")
      supported
    }
    checkRandom(tryCases, frames, byK, (0 to 30) ++ Seq(80), seed = 37)
  }

  test("hand-computed: try_sum is null from a frame's first overflowing partial sum (as Spark 4.3)") {
    val tryMode = NumericEvalContext(EvalMode.TRY)
    val rows = Seq[Any](Long.MaxValue, 1L, -5L, null, 3L).zipWithIndex.map { case (x, j) => rowWith(j, L -> x) }
    val res = results(Seq(Sum(l, tryMode) -> RunningRows, Sum(l, tryMode) -> SlidingRows(Some(-1), Some(0)),
      Sum(l, tryMode) -> WholeRows), rows)
    assert(res(0) == Seq(Long.MaxValue, null, null, null, null))
    assert(res(1) == Seq(Long.MaxValue, null, -4L, -5L, 3L))
    assert(res(2) == Seq.fill(5)(null))
  }

  test("ANSI mode: bigint and decimal sum overflow raise Spark's arithmetic error on both evaluators") {
    val longRows = Seq(Long.MaxValue, 1L).zipWithIndex.map { case (x, j) => rowWith(j, L -> x) }
    val nine = decimal("90000000000000000000000000000000000000", 38, 0)
    val decRows = Seq(nine, nine).zipWithIndex.map { case (x, j) => rowWith(j, BIG -> x) }
    for {
      (function, rows) <- Seq(Sum(l, ansi) -> longRows, Sum(big, ansi) -> decRows)
      frame <- Seq(WholeRows, RunningRows, RunningRange)
      flavor <- flavors
    } {
      val layout = layoutOf(Seq(win(agg(function), byK.spec, frame.spark)), byK.spec, schema)
      val e = intercept[ArithmeticException] {
        runPartition(flavor.create(layout), layout, rows)
      }
      val condition = e match {
        case t: org.apache.spark.SparkThrowable => t.getCondition
        case _ => null
      }
      assert(Set("ARITHMETIC_OVERFLOW", "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION",
        "NUMERIC_VALUE_OUT_OF_RANGE.WITHOUT_SUGGESTION").contains(condition),
        s"[$flavor, $frame, ${function.sql}] unexpected error condition $condition: ${e.getMessage}")
    }
  }
}

/** The reference's vocabulary (top level so that pattern matches need no outer reference). */
private object AggregateKernelSuite {
  /**
   * One aggregate under test: the function, the schema index of the column its reference reads
   * (count(*) reads k but counts every row), the reference over the frame's values in row order,
   * and whether a sliding frame must reproduce it bit for bit (false: double sums, within the
   * documented tolerance). Decimal sums are exact in any order, so they must match exactly too.
   */
  final case class AggCase(
      label: String,
      function: AggregateFunction,
      input: Int,
      reference: Seq[Any] => Any,
      exactWhenSliding: Boolean = true)

  /** A frame: its Spark form, and its textbook definition (the rows of row i's frame, in order). */
  sealed abstract class RefFrame(val spark: SpecifiedWindowFrame) {
    def members(i: Int, n: Int, keyCmp: (Int, Int) => Int): IndexedSeq[Int]
    /** Frames with value offsets also read the keys (`key(j)` of row j). */
    def members(i: Int, n: Int, keyCmp: (Int, Int) => Int, key: Int => Any): IndexedSeq[Int] =
      members(i, n, keyCmp)
    override def toString: String = spark.sql
  }
  object WholeRows extends RefFrame(wholeRows) {
    def members(i: Int, n: Int, keyCmp: (Int, Int) => Int): IndexedSeq[Int] = 0 until n
  }
  object WholeRange extends RefFrame(wholeRange) {
    def members(i: Int, n: Int, keyCmp: (Int, Int) => Int): IndexedSeq[Int] = 0 until n
  }
  object RunningRows extends RefFrame(runningRows) {
    def members(i: Int, n: Int, keyCmp: (Int, Int) => Int): IndexedSeq[Int] = 0 to i
  }
  /** Every row whose order key sorts before or equal to the current row's: peers included. */
  object RunningRange extends RefFrame(runningRange) {
    def members(i: Int, n: Int, keyCmp: (Int, Int) => Int): IndexedSeq[Int] =
      (0 until n).filter(j => keyCmp(j, i) <= 0)
  }
  /** ROWS BETWEEN i+lower AND i+upper (None: unbounded), clipped to the partition. */
  final case class SlidingRows(lower: Option[Int], upper: Option[Int]) extends RefFrame(
    SpecifiedWindowFrame(RowFrame, SlidingRows.bound(lower, UnboundedPreceding),
      SlidingRows.bound(upper, UnboundedFollowing))) {
    def members(i: Int, n: Int, keyCmp: (Int, Int) => Int): IndexedSeq[Int] = {
      val first = lower.fold(0L)(i.toLong + _)
      val last = upper.fold(n - 1L)(i.toLong + _)
      (math.max(0L, first) to math.min(n - 1L, last)).map(_.toInt)
    }
  }
  object SlidingRows {
    def bound(offset: Option[Int], unbounded: Expression): Expression = offset match {
      case None => unbounded
      case Some(0) => CurrentRow
      case Some(o) => Literal(o)
    }
  }
  /**
   * RANGE BETWEEN key + lower AND key + upper (None: unbounded) on an ascending int key, nulls
   * first: the rows whose key sorts between the two edge values (a null key's edges are null, so
   * its frame is the null keys, plus the rows an unbounded edge reaches).
   */
  final case class ValueRange(lower: Option[Int], upper: Option[Int]) extends RefFrame(
    SpecifiedWindowFrame(RangeFrame, lower.fold[Expression](UnboundedPreceding)(Literal(_)),
      upper.fold[Expression](UnboundedFollowing)(Literal(_)))) {
    def members(i: Int, n: Int, keyCmp: (Int, Int) => Int): IndexedSeq[Int] =
      throw new UnsupportedOperationException("needs the keys")
    override def members(i: Int, n: Int, keyCmp: (Int, Int) => Int, key: Int => Any): IndexedSeq[Int] = {
      def long(k: Any): Option[Long] = Option(k).map(_.asInstanceOf[Int].toLong)
      def edge(o: Int): Option[Long] = long(key(i)).map(_ + o)
      // nulls first: None sorts before every value
      def cmp(a: Option[Long], b: Option[Long]): Int = (a, b) match {
        case (None, None) => 0
        case (None, _) => -1
        case (_, None) => 1
        case (Some(x), Some(y)) => java.lang.Long.compare(x, y)
      }
      (0 until n).filter { j =>
        val kj = long(key(j))
        lower.forall(o => cmp(kj, edge(o)) >= 0) && upper.forall(o => cmp(kj, edge(o)) <= 0)
      }
    }
  }
  /** RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING (or CURRENT ROW): peers onward (peers). */
  final case class PeersRange(toEnd: Boolean) extends RefFrame(
    SpecifiedWindowFrame(RangeFrame, CurrentRow, if (toEnd) UnboundedFollowing else CurrentRow)) {
    def members(i: Int, n: Int, keyCmp: (Int, Int) => Int): IndexedSeq[Int] =
      (0 until n).filter(j => if (toEnd) keyCmp(j, i) >= 0 else keyCmp(j, i) == 0)
  }

  /** An order: the Spark sort order, and the reference's comparison of two rows' keys. */
  final case class Order(spec: Seq[SortOrder], keyOf: InternalRow => Any, cmp: (Any, Any) => Int) {
    def rowOrdering: Ordering[InternalRow] = (a: InternalRow, b: InternalRow) => cmp(keyOf(a), keyOf(b))
  }
}
