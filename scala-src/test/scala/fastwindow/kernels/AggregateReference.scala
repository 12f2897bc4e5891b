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
 * The naive reference the aggregate kernel suites compare fastwindow with: for every row, collect
 * the rows of its frame by the frame's textbook definition (O(n^2)), then fold their values in row
 * order; plus the columns, cases, frames and random partitions the suites share.
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
 */
trait AggregateReference { this: AnyFunSuite =>

  // Input columns (schema index = constant below).
  protected val K = 0; protected val I = 1; protected val L = 2; protected val D = 3;
  protected val F = 4
  protected val DEC = 5; protected val BIG = 6; protected val S = 7; protected val DT = 8;
  protected val TS = 9
  protected val BIN = 10

  protected val k = attr("k", IntegerType)
  protected val i = attr("i", IntegerType)
  protected val l = attr("l", LongType)
  protected val d = attr("d", DoubleType)
  protected val f = attr("f", FloatType)
  protected val dec = attr("dec", DecimalType(10, 2))
  protected val big = attr("big", DecimalType(38, 0))
  protected val s = attr("s", StringType)
  protected val dt = attr("dt", DateType)
  protected val ts = attr("ts", TimestampType)
  protected val bin = attr("bin", BinaryType)
  protected val schema = Seq(k, i, l, d, f, dec, big, s, dt, ts, bin)

  protected def sum(e: Expression): Sum = sumOf(e)
  protected def avg(e: Expression): Average = Average(e, EvalMode.LEGACY)

  // ---------------------------------------------------------------------------------------------
  // The reference

  /** Spark's order of values, written out independently of Spark's orderings. */
  protected object Cmp {
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
      case IntegerType | DateType =>
        (a, b) => Integer.compare(a.asInstanceOf[Int], b.asInstanceOf[Int])
      case LongType | TimestampType =>
        (a, b) => java.lang.Long.compare(a.asInstanceOf[Long], b.asInstanceOf[Long])
      case DoubleType => (a, b) => double(a.asInstanceOf[Double], b.asInstanceOf[Double])
      case FloatType =>
        (a, b) => double(a.asInstanceOf[Float].toDouble, b.asInstanceOf[Float].toDouble)
      case _: DecimalType =>
        (a, b) =>
          a.asInstanceOf[Decimal].toJavaBigDecimal.compareTo(
            b.asInstanceOf[Decimal].toJavaBigDecimal)
      case _: StringType =>
        (a, b) => bytes(a.asInstanceOf[UTF8String].getBytes, b.asInstanceOf[UTF8String].getBytes)
      case BinaryType => (a, b) => bytes(a.asInstanceOf[Array[Byte]], b.asInstanceOf[Array[Byte]])
      case other => throw new IllegalArgumentException(s"no reference order for $other")
    }
  }

  protected def nonNull(vs: Seq[Any]): Seq[Any] = vs.filter(_ != null)

  protected def asLong(v: Any): Long = v match {
    case x: Int => x.toLong
    case x: Long => x
  }
  protected def asDouble(v: Any): Double = v match {
    case x: Int => x.toDouble
    case x: Long => x.toDouble
    case x: Float => x.toDouble
    case x: Double => x
  }
  protected def asBigDecimal(v: Any): JBigDecimal = v.asInstanceOf[Decimal].toJavaBigDecimal

  protected def refCount(vs: Seq[Any]): Any = nonNull(vs).size.toLong

  protected def refSumLong(vs: Seq[Any]): Any = {
    val xs = nonNull(vs)
    if (xs.isEmpty) null else xs.foldLeft(0L)((acc, x) => acc + asLong(x)) // wraps
  }

  protected def refSumDouble(vs: Seq[Any]): Any = {
    val xs = nonNull(vs)
    if (xs.isEmpty) null else xs.foldLeft(0.0)((acc, x) => acc + asDouble(x))
  }

  protected def refAvgDouble(vs: Seq[Any]): Any = {
    val xs = nonNull(vs)
    if (xs.isEmpty) null else xs.foldLeft(0.0)((acc, x) => acc + asDouble(x)) / xs.size
  }

  /** `v` as a decimal(precision, scale), or null when it does not fit. */
  protected def fit(v: JBigDecimal, precision: Int, scale: Int): Any = {
    val scaled = v.setScale(scale, RoundingMode.UNNECESSARY)
    if (scaled.abs.compareTo(JBigDecimal.TEN.pow(precision - scale)) >= 0) null
    else Decimal(scaled, precision, scale)
  }

  protected def refSumDecimal(precision: Int, scale: Int)(vs: Seq[Any]): Any = {
    val xs = nonNull(vs)
    if (xs.isEmpty) null
    else fit(xs.foldLeft(JBigDecimal.ZERO)((acc, x) => acc.add(asBigDecimal(x))), precision, scale)
  }

  protected def refAvgDecimal(precision: Int, scale: Int)(vs: Seq[Any]): Any = {
    val xs = nonNull(vs)
    if (xs.isEmpty) null
    else {
      val total = xs.foldLeft(JBigDecimal.ZERO)((acc, x) => acc.add(asBigDecimal(x)))
      fit(total.divide(new JBigDecimal(xs.size), scale, RoundingMode.HALF_UP), precision, scale)
    }
  }

  /** The first value that no later value beats (strictly) under `better`. */
  protected def refExtreme(better: Int => Boolean, cmp: (Any, Any) => Int)(vs: Seq[Any]): Any =
    nonNull(vs).foldLeft(null: Any)((cur, x) => if (cur == null || better(cmp(x, cur))) x else cur)

  protected def refMin(dataType: DataType): Seq[Any] => Any = refExtreme(_ < 0, Cmp.of(dataType))
  protected def refMax(dataType: DataType): Seq[Any] => Any = refExtreme(_ > 0, Cmp.of(dataType))

  protected val minMaxColumns = Seq(I -> i, L -> l, D -> d, F -> f, DEC -> dec, BIG -> big, S -> s,
    DT -> dt, TS -> ts, BIN -> bin)

  protected val cases: Seq[AggCase] = Seq(
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

  protected val slidingFrames: Seq[SlidingRows] = Seq(
    SlidingRows(Some(-2), Some(0)),
    SlidingRows(Some(-1), Some(1)),
    SlidingRows(Some(-5), Some(-2)), // empty at the start
    SlidingRows(Some(1), Some(3)), // empty at the end
    SlidingRows(Some(0), Some(0)),
    SlidingRows(None, Some(-2)),
    SlidingRows(None, Some(1)),
    SlidingRows(Some(-2), None),
    SlidingRows(Some(0), None), // shrinking
    SlidingRows(Some(-1000), Some(1000)),
    SlidingRows(Some(-Int.MaxValue), Some(Int.MaxValue - 1))
  )

  // ---------------------------------------------------------------------------------------------
  // Random partitions

  protected def nullsFirst(c: (Any, Any) => Int): (Any, Any) => Int = (a, b) =>
    if (a == null) { if (b == null) 0 else -1 }
    else if (b == null) 1 else c(a, b)
  protected def descNullsLast(c: (Any, Any) => Int): (Any, Any) => Int = (a, b) =>
    if (a == null) { if (b == null) 0 else 1 }
    else if (b == null) -1 else c(b, a)

  protected def value(r: InternalRow, index: Int): Any =
    if (r.isNullAt(index)) null else r.get(index, schema(index).dataType)

  protected val byK = Order(Seq(asc(k)), value(_, K), nullsFirst(Cmp.of(IntegerType)))
  protected val byDDesc = Order(Seq(desc(d)), value(_, D), descNullsLast(Cmp.of(DoubleType)))

  protected val bigDecimals = Seq(
    "90000000000000000000000000000000000000",
    "-90000000000000000000000000000000000000",
    "50000000000000000000000000000000000000",
    "-50000000000000000000000000000000000000",
    "99999999999999999999999999999999999999",
    "1",
    "-1",
    "0"
  ).map(v => Decimal(new JBigDecimal(v), 38, 0))

  protected def randomRow(r: Random, shape: Shape, keyShape: Shape): InternalRow = {
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
      randomValue(BinaryType, r, shape)
    )
  }

  /** A partition of n random rows sorted by `order`, with ties and nulls in the order key. */
  protected def randomPartition(r: Random, n: Int, order: Order): IndexedSeq[InternalRow] = {
    val shape = randomShape(r, n)
    val keyShape = Shape(1 + r.nextInt(1 + n / 2), if (r.nextBoolean()) 0.0 else 0.15, 0.0)
    Vector.fill(n)(randomRow(r, shape, keyShape)).sortWith((a, b) => order.rowOrdering.lt(a, b))
  }

  protected def layoutFor(cs: Seq[AggCase], frame: RefFrame, order: Order): TestPlan =
    layoutOf(cs.map(c => win(windowFunction(c.function), order.spec, frame.spark)), order.spec,
      schema)

  /** As the analyzer writes it: aggregates in an AggregateExpression, window functions bare. */
  protected def windowFunction(f: AggregateFunction): Expression = f match {
    case w: AggregateWindowFunction => w
    case other => agg(other)
  }

  /** Per row, per case: the frame's values of the case's column fed to its reference. */
  protected def expected(cs: Seq[AggCase], frame: RefFrame, order: Order,
      rows: IndexedSeq[InternalRow]): Results = {
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
  protected def checkRandom(
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

  protected val sizes: Seq[Int] = (0 to 64) ++ Seq(100, 157, 300)

  /** The documented tolerance for double sums and averages over sliding frames. */
  protected def slidingTolerance(
      c: AggCase, e: Double, a: Double, frameValues: Seq[Any]): Boolean = {
    val xs = nonNull(frameValues).map(asDouble)
    if (c.exactWhenSliding || e.isNaN || e.isInfinite || a.isNaN || a.isInfinite) false
    else {
      val scale = xs.map(math.abs).sum / (if (c.label.startsWith("avg")) xs.size else 1)
      math.abs(e - a) <= 1e-12 * scale
    }
  }

  /** The cases [[fastwindow.functions.WindowSupport]] accepts over every sliding frame. */
  protected lazy val slidingCases: Seq[AggCase] = cases.filter { c =>
    slidingFrames.forall(fr =>
      check(Seq(win(windowFunction(c.function), byK.spec, fr.spark)), byK.spec).isRight)
  }

  protected val rangeFrames: Seq[RefFrame] = Seq(
    ValueRange(Some(-2), Some(1)),
    ValueRange(Some(-3), Some(0)),
    ValueRange(Some(0), Some(0)),
    ValueRange(Some(-5), Some(-2)),
    ValueRange(Some(1), Some(4)), // before / after the row's key
    ValueRange(None, Some(2)),
    ValueRange(Some(-1), None),
    ValueRange(Some(3), None),
    ValueRange(None, Some(-3)),
    PeersRange(toEnd = true),
    PeersRange(toEnd = false)
  )

  // ---------------------------------------------------------------------------------------------
  // Hand-computed cases (they also guard the reference)

  /** Results of `functions` over `rows` on both evaluators, which must agree; by function. */
  protected def results(
      functions: Seq[(AggregateFunction, RefFrame)],
      rows: Seq[InternalRow],
      order: Order = byK): IndexedSeq[Seq[Any]] = {
    val exprs = functions.map { case (fn, frame) => win(agg(fn), order.spec, frame.spark) }
    val layout = layoutOf(exprs, order.spec, schema)
    val all = flavors.map(fl => runPartition(fl.create(layout), layout, rows, unsafeFeed(schema)))
    firstDifference(all(0), all(1), layout, rows, schema).foreach(diff =>
      fail(s"twins differ: $diff"))
    functions.indices.map(c => all(0).map(_(c)))
  }

  /** A row with key `key` and the given column values (schema index -> value). */
  protected def rowWith(key: Any, values: (Int, Any)*): InternalRow = {
    val vs = Array.fill[Any](schema.size)(null)
    vs(K) = key
    values.foreach { case (index, v) => vs(index) = v }
    new GenericInternalRow(vs)
  }

  protected def decimal(v: String, p: Int, sc: Int): Decimal = Decimal(new JBigDecimal(v), p, sc)

}

/** The reference's vocabulary (top level so that pattern matches need no outer reference). */
object AggregateReference {

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
    override def members(
        i: Int, n: Int, keyCmp: (Int, Int) => Int, key: Int => Any): IndexedSeq[Int] = {
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
    def rowOrdering: Ordering[InternalRow] =
      (a: InternalRow, b: InternalRow) => cmp(keyOf(a), keyOf(b))
  }
}
