package fastwindow.exec.window

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.WindowTestKit._

/**
 * Properties of whole evaluators rather than of one kernel:
 *  - reuse: one evaluator instance run over partitions of very different sizes in a row (large,
 *    small, empty, larger, one row, ...) gives exactly what a fresh evaluator gives for each
 *    partition. Buffers are reused across partitions and only grow, so this catches state that
 *    leaks from one partition into the next (stale values, nulls, peer breaks, frame pointers).
 *  - twins: the evaluator over generated ops ([[fastwindow.codegen.OpsCodegen]]) and over their
 *    interpreted twins ([[fastwindow.ops.InterpretedOps]]) give bit-identical results for random
 *    mixes of every supported function and frame, over random partitions (seeded, so failures
 *    reproduce).
 */
class EvaluatorSuite extends AnyFunSuite {

  private val k = attr("k", IntegerType)
  private val i = attr("i", IntegerType)
  private val l = attr("l", LongType)
  private val d = attr("d", DoubleType)
  private val dec = attr("dec", DecimalType(10, 2))
  private val s = attr("s", StringType)
  private val dt = attr("dt", DateType)
  private val ts = attr("ts", TimestampType)
  private val schema = Seq(k, i, l, d, dec, s, dt, ts)

  private def randomRows(
      r: Random, n: Int, shape: Shape, order: Seq[SortOrder]): IndexedSeq[InternalRow] = {
    val keyShape = shape.copy(distinct = 1 + r.nextInt(1 + n / 3), specialFraction = 0.1)
    val rows = Vector.fill(n) {
      new GenericInternalRow(schema.zipWithIndex.map { case (a, j) =>
        randomValue(a.dataType, r, if (j == 0) keyShape else shape)
      }.toArray): InternalRow
    }
    sortRows(rows, order)
  }

  /** Sorts rows as Spark does before a window: by the order keys, nulls as the order says. */
  private def sortRows(
      rows: IndexedSeq[InternalRow], order: Seq[SortOrder]): IndexedSeq[InternalRow] = {
    val keys = order.map { o =>
      val index = schema.indexWhere(_.semanticEquals(o.child))
      (index, sqlOrdering(o.dataType, o.direction == Ascending))
    }
    val ord = lexicographic(keys.map(_._2))
    def keyOf(row: InternalRow): IndexedSeq[Any] = keys.map { case (index, _) =>
      if (row.isNullAt(index)) null else row.get(index, schema(index).dataType)
    }.toIndexedSeq
    rows.sortBy(keyOf)(ord)
  }

  // ---------------------------------------------------------------------------------------------
  // Evaluator reuse

  private val reuseOrder = Seq(asc(k))

  /** Every kind of kernel and state: peers, ranking, lead/lag buffers, running and sliding aggregates. */
  private val reuseFunctions: Seq[Expression] = {
    val keys = reuseOrder.map(_.child)
    def sliding(lower: Int, upper: Int) =
      SpecifiedWindowFrame(RowFrame, if (lower == 0) CurrentRow else Literal(lower),
        if (upper == 0) CurrentRow else Literal(upper))
    Seq(
      win(RowNumber(), reuseOrder),
      win(Rank(keys), reuseOrder),
      win(DenseRank(keys), reuseOrder),
      win(PercentRank(keys), reuseOrder),
      win(CumeDist(), reuseOrder),
      win(NTile(Literal(7)), reuseOrder),
      win(Lead(i, Literal(3), Literal(-1), false), reuseOrder),
      win(Lag(s, Literal(2), Literal.create(null, StringType), true), reuseOrder),
      win(Lead(dec, Literal(1), dec, true), reuseOrder),
      win(Lag(ts, Literal(40), Literal.create(null, TimestampType), false), reuseOrder),
      win(agg(Count(Literal(1))), reuseOrder, wholeRows),
      win(agg(sumOf(l)), reuseOrder, runningRows),
      win(agg(Average(d, EvalMode.LEGACY)), reuseOrder, runningRange),
      win(agg(Min(s)), reuseOrder, runningRange),
      win(agg(Max(dec)), reuseOrder, wholeRange),
      win(agg(sumOf(dec)), reuseOrder, runningRange),
      win(agg(Max(s)), reuseOrder, sliding(-2, 1)),
      win(agg(sumOf(i)), reuseOrder, sliding(-3, 0)),
      win(agg(Count(d)), reuseOrder,
        SpecifiedWindowFrame(RowFrame, Literal(1), UnboundedFollowing)),
      win(agg(Min(dt)), reuseOrder, sliding(-50, -10))
    )
  }

  /** (size, shape) of each partition in turn: large, small, empty, larger, one row, ... */
  private val reuseSequence: Seq[(Int, Shape)] = Seq(
    300 -> Shape(1000000, 0.0, 0.2), // no nulls, mostly distinct keys
    5 -> Shape(2, 1.0, 0.0), // all nulls
    0 -> Shape(1, 0.0, 0.0),
    700 -> Shape(20, 0.3, 0.2), // many ties, some nulls
    1 -> Shape(1000000, 0.0, 0.0),
    0 -> Shape(1, 0.0, 0.0),
    2 -> Shape(1, 1.0, 0.0),
    300 -> Shape(3, 0.1, 0.2),
    17 -> Shape(1000000, 0.0, 0.0),
    64 -> Shape(5, 0.7, 0.0)
  )

  test(
    "one evaluator reused over large, small, empty and larger partitions matches fresh evaluators") {
    val layout = layoutOf(reuseFunctions, reuseOrder, schema)
    val feed = unsafeFeed(schema)
    val r = new Random(41)
    val partitions = reuseSequence.map { case (n, shape) => randomRows(r, n, shape, reuseOrder) }
    val reused = flavors.map(fl => fl -> fl.create(layout))
    for (((n, shape), p) <- reuseSequence.zip(partitions).zipWithIndex) {
      val rows = partitions(p)
      val perFlavor = reused.map { case (flavor, ev) =>
        val again = runPartition(ev, layout, rows, feed)
        val fresh = runPartition(flavor.create(layout), layout, rows, feed)
        firstDifference(fresh, again, layout, rows, schema).foreach { diff =>
          fail(
            s"[$flavor, partition #$p: n=$n, $shape] reused evaluator differs from a fresh one " +
              s"(expected = fresh): $diff")
        }
        again
      }
      firstDifference(perFlavor(0), perFlavor(1), layout, rows, schema).foreach { diff =>
        fail(s"[partition #$p: n=$n, $shape] generated differs from interpreted " +
          s"(expected = interpreted): $diff")
      }
    }
  }

  test("numRows follows the protocol across reuse") {
    val layout = layoutOf(reuseFunctions.take(3), reuseOrder, schema)
    for (flavor <- flavors) {
      val ev = flavor.create(layout)
      for (n <- Seq(40, 0, 3, 100, 0)) {
        ev.startPartition()
        assert(ev.numRows == 0)
        (0 until n).foreach(j => ev.ingest(row(j, null, null, null, null, null, null, null)))
        assert(ev.numRows == n, s"[$flavor] after $n rows")
        ev.finishPartition()
        val out = new SpecificInternalRow(layout.functionTypes)
        (0 until n).foreach { j =>
          ev.write(j, out)
          assert(out.getInt(0) == j + 1, s"[$flavor] row_number of row $j")
        }
      }
    }
  }

  test("bufferBytes counts the state sliding frames build while rows are written") {
    val shrinking = SpecifiedWindowFrame(RowFrame, CurrentRow, UnboundedFollowing)
    val layout = layoutOf(Seq(win(agg(sumOf(l)), Seq(asc(k)), shrinking)), Seq(asc(k)), schema)
    for (flavor <- flavors) {
      val ev = flavor.create(layout)
      ev.startPartition()
      (0 until 5000).foreach(j => ev.ingest(row(j, null, j.toLong, null, null, null, null, null)))
      ev.finishPartition()
      val columnsOnly = ev.bufferBytes
      val out = new SpecificInternalRow(layout.functionTypes)
      ev.write(0, out)
      ev.write(1, out) // the frame's first move builds the partials of every suffix
      assert(ev.bufferBytes >= columnsOnly + 5000 * 8,
        s"[$flavor] ${ev.bufferBytes} vs $columnsOnly")
      // What the partition iterator reserves before the first result is returned bounds it.
      (2 until 5000).foreach(ev.write(_, out))
      val reserved = columnsOnly + 2 * ev.stateBytesPerRow * 5000
      assert(ev.bufferBytes <= reserved, s"[$flavor] ${ev.bufferBytes} > $reserved")
    }
  }

  test(
    "a generated evaluator runs each function's kernel on a copy of its own (AlgorithmIsolation)") {
    // Three functions of one kernel class: with one copy, the kernel's calls into its ops would
    // see three ops classes, which the JIT does not inline.
    val functions = Seq(win(agg(Average(d, EvalMode.LEGACY)), Seq(asc(k)), wholeRows),
      win(agg(Max(l)), Seq(asc(k)), wholeRows), win(agg(Count(Literal(1))), Seq(asc(k)), wholeRows))
    val layout = layoutOf(functions, Seq(asc(k)), schema)
    def kernelClasses(ev: WindowEvaluator): Seq[Class[_]] = {
      val field = ev.getClass.getDeclaredField("kernels")
      field.setAccessible(true)
      field.get(ev).asInstanceOf[Array[AnyRef]].toSeq.map(_.getClass)
    }
    val generated = kernelClasses(Generated.create(layout))
    assert(generated.map(_.getName).distinct.size == 1, generated)
    assert(generated.distinct.size == 3,
      "one class per function: " + generated.map(_.getClassLoader))
    // A function's copy holds its kernel's algorithms, not the registry: loading every family and
    // its planning facts into each copy made a new 20-function query load 2,000 classes.
    for (copy <- generated.tail.map(_.getClassLoader)) {
      val defined = copy.asInstanceOf[AlgorithmIsolation.IsolatingLoader].defined.toArray(
        Array.empty[String]).toSeq
      assert(!defined.exists(_.startsWith("fastwindow.functions.WindowSupport")), defined)
      assert(defined.count(_.endsWith("Family$")) == 1, defined)
      assert(defined.size < 40, defined)
    }
    val interpreted = kernelClasses(Interpreted.create(layout))
    assert(interpreted.distinct.size == 1, "the interpreted evaluator shares fastwindow's classes")
    assert(interpreted.head.getClassLoader == classOf[KernelEvaluator].getClassLoader)
    // Results are the same either way.
    val rows = (0 until 50).map(j => row(j % 3, null, j.toLong, j * 0.5, null, null, null, null))
    assert(runPartition(Generated.create(layout), layout, rows) ==
      runPartition(Interpreted.create(layout), layout, rows))
  }

  // ---------------------------------------------------------------------------------------------
  // Twins: generated vs interpreted on random function mixes

  private val orders: Seq[Seq[SortOrder]] = Seq(
    Seq(asc(k)), Seq(desc(k)), Seq(asc(d)), Seq(asc(k), desc(s)), Seq(desc(dt), asc(dec)))

  private def pick[T](r: Random, xs: Seq[T]): T = xs(r.nextInt(xs.size))

  // Inputs are columns or expressions over them (buffered once each, evaluated at ingest).
  private val numeric: Seq[Expression] =
    Seq(k, i, l, d, dec, Add(Cast(i, LongType), Cast(k, LongType)), Multiply(d, Literal(-1.5)))
  private val orderable: Seq[Expression] =
    Seq(k, i, l, d, dec, s, dt, ts, Upper(s), DateAdd(dt, Literal(3)))

  private def randomFrame(r: Random): SpecifiedWindowFrame = r.nextInt(6) match {
    case 0 => wholeRows
    case 1 => wholeRange
    case 2 => runningRows
    case 3 => runningRange
    case _ =>
      def offset(o: Int): Expression = if (o == 0) CurrentRow else Literal(o)
      val a = r.nextInt(9) - 5
      val b = a + r.nextInt(6)
      val lower = if (r.nextInt(5) == 0) UnboundedPreceding else offset(a)
      val upper = if (r.nextInt(5) == 0) UnboundedFollowing else offset(b)
      SpecifiedWindowFrame(RowFrame, lower, upper)
  }

  private def randomFunction(r: Random, order: Seq[SortOrder]): Expression = {
    val keys = order.map(_.child)
    r.nextInt(3) match {
      case 0 =>
        win(
          pick(r,
            Seq[() => Expression](() => RowNumber(), () => Rank(keys), () => DenseRank(keys),
              () => PercentRank(keys), () => CumeDist(),
              () => NTile(Literal(1 + r.nextInt(12)))))(),
          order
        )
      case 1 =>
        val input = pick(r,
          schema ++ Seq(Add(Cast(i, LongType), Cast(k, LongType)), Concat(Seq(s, Literal("!")))))
        val offset = Literal(r.nextInt(8) - 2)
        val default = r.nextInt(3) match {
          case 0 => Literal.create(null, input.dataType)
          case 1 => input // the current row's own value, evaluated per row
          case _ =>
            if (input.dataType == IntegerType) Literal(-7) else Literal.create(null, input.dataType)
        }
        val ignoreNulls = r.nextBoolean()
        win(if (r.nextBoolean()) Lead(input, offset, default, ignoreNulls)
          else Lag(input, offset, default, ignoreNulls), order)
      case _ =>
        val function: AggregateFunction = r.nextInt(6) match {
          case 0 => if (r.nextBoolean()) Count(Literal(1)) else Count(pick(r, schema))
          case 1 => sumOf(pick(r, numeric))
          case 2 => Average(pick(r, numeric), EvalMode.LEGACY)
          case 3 => Min(pick(r, orderable))
          case _ => Max(pick(r, orderable))
        }
        win(agg(function), order, randomFrame(r))
    }
  }

  /** 2 to 10 random functions that together pass the support check (unsupported ones are redrawn). */
  private def randomMix(r: Random, order: Seq[SortOrder]): Seq[Expression] = {
    val target = 2 + r.nextInt(9)
    var mix = Vector.empty[Expression]
    var attempts = 0
    while (mix.size < target && attempts < 100) {
      attempts += 1
      val w = randomFunction(r, order)
      if (!mix.exists(_.semanticEquals(w)) && check(mix :+ w, order).isRight) mix :+= w
    }
    mix
  }

  private def randomSize(r: Random): Int = r.nextInt(10) match {
    case 0 => 0
    case 1 => 1
    case 2 => 150 + r.nextInt(250)
    case _ => r.nextInt(60)
  }

  test("twins: generated and interpreted evaluators agree on 40 random function mixes (seeded)") {
    val seed = 51L
    val r = new Random(seed)
    val feed = unsafeFeed(schema)
    for (mixNumber <- 0 until 40) {
      val order = pick(r, orders)
      val mix = randomMix(r, order)
      val layout = layoutOf(mix, order, schema)
      val evaluators = flavors.map(fl => fl -> fl.create(layout))
      for (p <- 0 until 12) {
        val n = randomSize(r)
        val rows = randomRows(r, n, randomShape(r, n), order)
        val Seq(interpreted, generated) = evaluators.map { case (_, ev) =>
          runPartition(ev, layout, rows, feed)
        }
        firstDifference(interpreted, generated, layout, rows, schema).foreach { diff =>
          fail(s"[seed=$seed, mix #$mixNumber, partition #$p, n=$n] generated differs from " +
            s"interpreted (expected = interpreted)\nfunctions:\n  ${mix.map(_.sql).mkString("\n  ")}\n$diff")
        }
      }
    }
  }

  test("a range's seed counts past an int fail the task rather than wrap") {
    assert(FastWindowExec.counted(Int.MaxValue.toLong) == Int.MaxValue)
    val error = intercept[org.apache.spark.SparkException](
      FastWindowExec.counted(Int.MaxValue.toLong + 1))
    assert(error.getMessage.contains("2147483648 rows or peer groups"))
  }
}
