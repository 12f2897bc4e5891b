package fastwindow

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction, Complete}
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, ArrayData, GenericArrayData, MapData}
import org.apache.spark.sql.fastwindow.shims.ArithmeticShim
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import fastwindow.config.CodegenMode
import fastwindow.exec.window.{EmitPolicy, EvaluatorFactory, WindowEvaluator}
import fastwindow.functions.WindowSupport
import fastwindow.model.{StreamBounds, WindowPlan}

/**
 * Shared helpers for the evaluator tests: building window expressions and plans the way Spark's
 * analyzer does (without a SparkSession), running a [[fastwindow.exec.window.WindowEvaluator]]
 * over one partition by its protocol (streaming as the operator's
 * [[fastwindow.exec.window.EmitPolicy]] would), generating random partitions with nulls, ties and special values, and comparing
 * catalyst values exactly (NaN equals NaN, -0.0 differs from 0.0, decimals compare with scale).
 */
object WindowTestKit {

  // ---------------------------------------------------------------------------------------------
  // Building expressions and plans

  val wholeRows: SpecifiedWindowFrame =
    SpecifiedWindowFrame(RowFrame, UnboundedPreceding, UnboundedFollowing)
  val wholeRange: SpecifiedWindowFrame =
    SpecifiedWindowFrame(RangeFrame, UnboundedPreceding, UnboundedFollowing)
  val runningRows: SpecifiedWindowFrame =
    SpecifiedWindowFrame(RowFrame, UnboundedPreceding, CurrentRow)
  val runningRange: SpecifiedWindowFrame =
    SpecifiedWindowFrame(RangeFrame, UnboundedPreceding, CurrentRow)

  def attr(name: String, dataType: DataType, nullable: Boolean = true): AttributeReference =
    AttributeReference(name, dataType, nullable)()

  /** `sum(e)` in an eval mode (how Sum carries it differs between Spark lines). */
  def sumOf(e: Expression, mode: EvalMode.Value = EvalMode.LEGACY): aggregate.Sum =
    ArithmeticShim.sum(e, mode)

  /** A data type by its DDL, or None on a Spark line without it (collations, VARIANT: 4.0+). */
  def typeOnThisLine(ddl: String): Option[DataType] = scala.util.Try(DataType.fromDDL(ddl)).toOption

  def asc(e: Expression): SortOrder = SortOrder(e, Ascending)
  def desc(e: Expression): SortOrder = SortOrder(e, Descending)

  def agg(
      f: AggregateFunction,
      distinct: Boolean = false,
      filter: Option[Expression] = None): AggregateExpression =
    AggregateExpression(f, Complete, distinct, filter)

  /**
   * A window expression as the analyzer leaves it: window functions that define their own frame
   * (ranking, lead/lag) get it, aggregates get `frame`.
   */
  def win(function: Expression, order: Seq[SortOrder], frame: WindowFrame = runningRange)
      : WindowExpression = {
    val f = function match {
      case w: WindowFunction if w.frame != UnspecifiedFrame => w.frame
      case _ => frame
    }
    WindowExpression(function, WindowSpecDefinition(Nil, order, f))
  }

  def aliased(exprs: Seq[Expression]): Seq[NamedExpression] =
    exprs.zipWithIndex.map { case (e, i) => Alias(e, s"w$i")() }

  def check(exprs: Seq[Expression], order: Seq[SortOrder]): WindowSupport.Outcome =
    WindowSupport.check(aliased(exprs), order)

  /** The plan of distinct window expressions; function k is the k-th expression. */
  def planOf(exprs: Seq[Expression], order: Seq[SortOrder]): WindowPlan =
    check(exprs, order) match {
      case Right(plan) =>
        require(plan.functions.size == exprs.size, "test plans must not repeat an expression")
        plan
      case Left(reasons) =>
        throw new AssertionError(s"expected a supported plan, got: ${reasons.mkString("; ")}")
    }

  /** A plan over a child's output: what an evaluator is built from. */
  final case class TestPlan(plan: WindowPlan, childOutput: Seq[Attribute]) {
    def functionTypes: Seq[DataType] = plan.resultTypes
  }

  def layoutOf(
      exprs: Seq[Expression],
      order: Seq[SortOrder],
      childOutput: Seq[Attribute]): TestPlan =
    TestPlan(planOf(exprs, order), childOutput)

  // ---------------------------------------------------------------------------------------------
  // Evaluators

  /** The two evaluators: generated ops, and their interpreted twins. */
  sealed abstract class Flavor(val name: String, mode: String) {
    def create(layout: TestPlan): WindowEvaluator =
      EvaluatorFactory(layout.plan, layout.childOutput, mode).create()
    override def toString: String = name
  }
  object Interpreted extends Flavor("interpreted", CodegenMode.NoCodegen)
  object Generated extends Flavor("generated", CodegenMode.CodegenOnly)
  val flavors: Seq[Flavor] = Seq(Interpreted, Generated)

  type Results = IndexedSeq[IndexedSeq[Any]]

  /**
   * Runs one partition through `ev` by the WindowEvaluator protocol and returns, per row, the
   * function results (by function ordinal), copied out of the result row. `feed` may turn each
   * input row into a reused row (e.g. an UnsafeProjection's result) to check that ingest copies.
   *
   * When the plan can stream, the partition is run a second time the streaming way (each row
   * written as soon as its bounds allow, buffered rows discarded after every write, as eagerly as
   * the bounds permit) and both runs must agree, so every kernel test also tests streaming. When
   * no function reads rows on write, it is also run discarding every row right after ingest.
   */
  def runPartition(
      ev: WindowEvaluator,
      layout: TestPlan,
      rows: Seq[InternalRow],
      feed: InternalRow => InternalRow = identity,
      seeded: Boolean = false): Results = {
    ev.startPartition()
    assert(ev.numRows == 0, s"numRows is ${ev.numRows} right after startPartition")
    rows.foreach(r => ev.ingest(feed(r)))
    assert(ev.numRows == rows.size, s"numRows is ${ev.numRows} after ingesting ${rows.size} rows")
    ev.finishPartition()
    val out = new SpecificInternalRow(layout.functionTypes)
    val buffered = rows.indices.map(i => writeRow(ev, i, out, layout.functionTypes))
    val types = layout.functionTypes
    def assertSame(how: String, other: Results): Unit =
      for (i <- buffered.indices; k <- types.indices) {
        assert(
          same(other(i)(k), buffered(i)(k), types(k)),
          s"row $i, function $k: $how ${show(other(i)(k), types(k))} " +
            s"but buffered ${show(buffered(i)(k), types(k))}"
        )
      }
    // A seeded evaluator (a range of a window) streams as such a range does.
    (if (seeded) layout.plan.seededStreamBounds else layout.plan.streamBounds).foreach { bounds =>
      assertSame("streamed", runStreaming(ev, layout, rows, feed, bounds))
    }
    if (layout.plan.readsNoRowsOnWrite) {
      ev.startPartition()
      rows.foreach { r =>
        ev.ingest(feed(r))
        ev.discardBefore(ev.numRows - 1)
      }
      ev.finishPartition()
      assertSame("discarding after ingest", rows.indices.map(i => writeRow(ev, i, out, types)))
    }
    buffered
  }

  private def writeRow(
      ev: WindowEvaluator,
      i: Int,
      out: InternalRow,
      types: Seq[DataType]): IndexedSeq[Any] = {
    ev.write(i, out)
    types.indices.map { k => if (out.isNullAt(k)) null else copyValue(out.get(k, types(k))) }
  }

  /** The streaming protocol, discarding rows after every write (see [[runPartition]]). */
  def runStreaming(
      ev: WindowEvaluator,
      layout: TestPlan,
      rows: Seq[InternalRow],
      feed: InternalRow => InternalRow,
      bounds: StreamBounds): Results = {
    val out = new SpecificInternalRow(layout.functionTypes)
    val results = scala.collection.mutable.ArrayBuffer.empty[IndexedSeq[Any]]
    val policy = new EmitPolicy(Some(bounds), dropsRowsOnIngest = false)
    def ready(complete: Boolean): Int = policy.ready(ev.numRows, ev, complete)
    def writeReady(complete: Boolean): Unit = while (results.size < ready(complete)) {
      results += writeRow(ev, results.size, out, layout.functionTypes)
      val keepFrom = policy.keepFrom(results.size, ev.numRows)
      if (keepFrom > ev.firstBufferedRow) ev.discardBefore(keepFrom.toInt)
    }
    ev.startPartition()
    rows.foreach { r =>
      ev.ingest(feed(r))
      writeReady(complete = false)
    }
    ev.finishPartition()
    writeReady(complete = true)
    results.toIndexedSeq
  }

  /** A feed that writes every row into one reused UnsafeRow, as Spark's operators do. */
  def unsafeFeed(childOutput: Seq[Attribute]): InternalRow => InternalRow = {
    val projection = UnsafeProjection.create(childOutput.map(_.dataType).toArray)
    row => projection(row)
  }

  def copyValue(v: Any): Any = v match {
    case s: UTF8String => s.copy()
    case d: Decimal => d.clone()
    case a: ArrayData => a.copy()
    case m: MapData => m.copy()
    case r: InternalRow => r.copy()
    case b: Array[Byte] => b.clone()
    case other => other
  }

  // ---------------------------------------------------------------------------------------------
  // Comparing values

  /** Exact equality of catalyst values: NaN == NaN, -0.0 != 0.0, decimals equal with scale. */
  def same(a: Any, b: Any, dataType: DataType): Boolean = (a, b) match {
    case (null, null) => true
    case (null, _) | (_, null) => false
    case _ => dataType match {
        case FloatType =>
          java.lang.Float.floatToIntBits(a.asInstanceOf[Float]) ==
            java.lang.Float.floatToIntBits(b.asInstanceOf[Float])
        case DoubleType =>
          java.lang.Double.doubleToLongBits(a.asInstanceOf[Double]) ==
            java.lang.Double.doubleToLongBits(b.asInstanceOf[Double])
        case _: DecimalType =>
          a.asInstanceOf[Decimal].toJavaBigDecimal == b.asInstanceOf[Decimal].toJavaBigDecimal
        case BinaryType =>
          java.util.Arrays.equals(a.asInstanceOf[Array[Byte]], b.asInstanceOf[Array[Byte]])
        case ArrayType(et, _) =>
          val (x, y) = (a.asInstanceOf[ArrayData], b.asInstanceOf[ArrayData])
          x.numElements() == y.numElements() && (0 until x.numElements()).forall { i =>
            same(elem(x, i, et), elem(y, i, et), et)
          }
        case st: StructType =>
          val (x, y) = (a.asInstanceOf[InternalRow], b.asInstanceOf[InternalRow])
          x.numFields == y.numFields && st.fields.indices.forall { i =>
            val dt = st.fields(i).dataType
            same(field(x, i, dt), field(y, i, dt), dt)
          }
        case MapType(kt, vt, _) =>
          val (x, y) = (a.asInstanceOf[MapData], b.asInstanceOf[MapData])
          same(x.keyArray(), y.keyArray(), ArrayType(kt)) &&
          same(x.valueArray(), y.valueArray(), ArrayType(vt))
        case _ => a == b
      }
  }

  private def elem(a: ArrayData, i: Int, dt: DataType): Any =
    if (a.isNullAt(i)) null else a.get(i, dt)
  private def field(r: InternalRow, i: Int, dt: DataType): Any =
    if (r.isNullAt(i)) null else r.get(i, dt)

  def show(v: Any, dataType: DataType): String = if (v == null) "null"
  else dataType match {
    case DoubleType | FloatType => v.toString
    case _: DecimalType => v.asInstanceOf[Decimal].toJavaBigDecimal.toPlainString
    case _: StringType => "\"" + v + "\""
    case BinaryType => v.asInstanceOf[Array[Byte]].map(b => f"$b%02x").mkString("x'", "", "'")
    case ArrayType(et, _) =>
      val a = v.asInstanceOf[ArrayData]
      (0 until a.numElements()).map(i => show(elem(a, i, et), et)).mkString("[", ", ", "]")
    case st: StructType =>
      val r = v.asInstanceOf[InternalRow]
      st.fields.indices.map(i => show(field(r, i, st.fields(i).dataType), st.fields(i).dataType))
        .mkString("{", ", ", "}")
    case MapType(kt, vt, _) =>
      val m = v.asInstanceOf[MapData]
      s"map(${show(m.keyArray(), ArrayType(kt))} -> ${show(m.valueArray(), ArrayType(vt))})"
    case _ => v.toString
  }

  def showRow(row: InternalRow, schema: Seq[Attribute]): String =
    schema.zipWithIndex.map { case (a, i) =>
      s"${a.name}=${show(field(row, i, a.dataType), a.dataType)}"
    }.mkString("(", ", ", ")")

  /**
   * The first difference between `expected` and `actual` results, described with the function,
   * the row and the whole partition; None when they are identical.
   */
  def firstDifference(
      expected: Results,
      actual: Results,
      layout: TestPlan,
      rows: Seq[InternalRow],
      schema: Seq[Attribute]): Option[String] = {
    val types = layout.functionTypes
    if (expected.size != actual.size) {
      return Some(s"expected ${expected.size} result rows, got ${actual.size}")
    }
    val diffs = for {
      i <- expected.indices.iterator
      k <- types.indices.iterator
      if !same(expected(i)(k), actual(i)(k), types(k))
    } yield (i, k)
    diffs.take(1).toSeq.headOption.map { case (i, k) =>
      val fn = layout.plan.functions(k)
      val partition = rows.zipWithIndex.map { case (r, j) =>
        f"  $j%4d ${showRow(r, schema)}  expected=${show(expected(j)(k), types(k))}" +
          s" actual=${show(actual(j)(k), types(k))}" + (if (j == i) "   <== first difference"
                                                        else "")
      }.take(math.max(i + 3, 12)).mkString("\n")
      s"function $k ($fn) differs at row $i of ${rows.size}: expected " +
        s"${show(expected(i)(k), types(k))}, got ${show(actual(i)(k), types(k))}\n$partition"
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Random data

  /** How a random partition's values are drawn: how many distinct values, how many nulls. */
  final case class Shape(distinct: Int, nullFraction: Double, specialFraction: Double) {
    override def toString: String =
      s"distinct=$distinct nulls=$nullFraction special=$specialFraction"
  }

  def randomShape(r: Random, n: Int): Shape = {
    val distinct = r.nextInt(6) match {
      case 0 => 1
      case 1 => 2
      case 2 => 3
      case 3 => math.max(1, n / 4)
      case 4 => math.max(1, n / 2)
      case _ => 1000000
    }
    val nulls = r.nextInt(6) match {
      case 0 | 1 => 0.0
      case 2 => 0.1
      case 3 => 0.3
      case 4 => 0.7
      case _ => 1.0
    }
    Shape(distinct, nulls, if (r.nextBoolean()) 0.0 else 0.2)
  }

  private val strings = Array("", "a", "A", "ab", "abc", "b", "ba", "z", "é", "日本", "\uD83D\uDE00",
    "a\u0000b", "longer string value that is not inlined anywhere", "Z", "aa")

  /** A random catalyst value of `dt` drawn from `shape` (ties, nulls, special values). */
  def randomValue(dt: DataType, r: Random, shape: Shape): Any = {
    if (r.nextDouble() < shape.nullFraction) return null
    val special = r.nextDouble() < shape.specialFraction
    val x = r.nextInt(math.max(1, math.min(shape.distinct, 1000000))) - math.min(shape.distinct,
      1000000) / 2
    dt match {
      case BooleanType => (x & 1) == 0
      case ByteType => (
        if (special) Seq(Byte.MinValue, Byte.MaxValue, 0.toByte)(r.nextInt(3)) else (x % 100).toByte
      )
      case ShortType => (
        if (special) Seq(Short.MinValue, Short.MaxValue)(r.nextInt(2)) else (x % 30000).toShort
      )
      case IntegerType => if (special) Seq(Int.MinValue, Int.MaxValue, 0)(r.nextInt(3)) else x
      case LongType =>
        if (special) Seq(Long.MaxValue / 4, Long.MinValue / 4, 0L)(r.nextInt(3)) else x * 1000003L
      case FloatType =>
        if (special)
          Seq(Float.NaN, Float.PositiveInfinity, Float.NegativeInfinity, -0.0f, 0.0f)(r.nextInt(5))
        else x / 4.0f
      case DoubleType =>
        if (special)
          Seq(Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity, -0.0, 0.0)(r.nextInt(5))
        else x * 0.1
      case dec: DecimalType =>
        val (p, s) = (dec.precision, dec.scale)
        val unscaled =
          BigInt(x) * BigInt(10).pow(math.max(0, p - 6)) / 1000 + (if (special) 1 else 0)
        val bd = BigDecimal(unscaled, s)
        require(bd.precision <= p, s"$bd does not fit decimal($p,$s)")
        Decimal(bd, p, s)
      case _: StringType => UTF8String.fromString(
          if (shape.distinct <= strings.length) strings(java.lang.Math.floorMod(x, strings.length))
          else strings(r.nextInt(strings.length)) + x)
      case BinaryType => Array[Byte](x.toByte, (x >> 8).toByte).take(java.lang.Math.floorMod(x, 3))
      case DateType => 19000 + x
      case TimestampType | TimestampNTZType =>
        1700000000000000L + x * 3600L * 1000000L + (if (special) 1L else 0L)
      case ArrayType(et, _) =>
        new GenericArrayData(Array.fill(java.lang.Math.floorMod(x, 4))(randomValue(et, r,
              shape.copy(nullFraction = 0.2))))
      case st: StructType =>
        new GenericInternalRow(
          st.fields.map(f => randomValue(f.dataType, r, shape.copy(nullFraction = 0.2))))
      case MapType(kt, vt, _) =>
        val size = java.lang.Math.floorMod(x, 3)
        val keys = (0 until size).map(j => randomValue(kt, r, Shape(1000000, 0.0, 0.0)))
          .distinct.toArray
        ArrayBasedMapData(keys, keys.map(_ => randomValue(vt, r, shape.copy(nullFraction = 0.2))))
      case other => throw new IllegalArgumentException(s"no random values for $other")
    }
  }

  /** Spark's ordering of `dt` values with nulls first (ascending) or last (descending). */
  def sqlOrdering(dt: DataType, ascending: Boolean = true): Ordering[Any] = {
    val base = PhysicalDataType.ordering(dt)
    val directed = if (ascending) base else base.reverse
    (a: Any, b: Any) =>
      (a, b) match {
        case (null, null) => 0
        case (null, _) => if (ascending) -1 else 1
        case (_, null) => if (ascending) 1 else -1
        case _ => directed.compare(a, b)
      }
  }

  /** Lexicographic ordering over several keys. */
  def lexicographic(orderings: Seq[Ordering[Any]]): Ordering[IndexedSeq[Any]] =
    (a: IndexedSeq[Any], b: IndexedSeq[Any]) => {
      var k = 0
      var c = 0
      while (c == 0 && k < orderings.size) {
        c = orderings(k).compare(a(k), b(k))
        k += 1
      }
      c
    }

  def row(values: Any*): InternalRow = new GenericInternalRow(values.toArray)
}
