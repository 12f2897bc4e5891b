package fastwindow.kernels

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.WindowTestKit._

/**
 * lead and lag, with and without IGNORE NULLS, with null, constant, per-row and computed
 * defaults, offsets 0, inside and beyond the partition, and negative offsets, on both evaluators
 * against a naive reference (scan for the |offset|-th non-null row strictly after/before).
 */
class OffsetKernelSuite extends AnyFunSuite {

  private val k = attr("k", IntegerType, nullable = false)
  private val x = attr("x", IntegerType)
  private val dflt = attr("dflt", IntegerType)
  private val s = attr("s", StringType)
  private val schema = Seq(k, x, dflt, s)
  private val order = Seq(asc(k))

  /** A lead/lag under test: the expression and how to compute its expected values. */
  private case class Case(
      function: Expression,
      input: Int, // schema index of the input
      offset: Int, // signed: lag is negative
      ignoreNulls: Boolean,
      default: InternalRow => Any)

  private def lead(input: Expression, offset: Int, default: Expression, ignoreNulls: Boolean) =
    Lead(input, Literal(offset), default, ignoreNulls)
  private def lag(input: Expression, offset: Int, default: Expression, ignoreNulls: Boolean) =
    Lag(input, Literal(offset), default, ignoreNulls)

  private val nullDefault: InternalRow => Any = _ => null

  private def intDefaults: Seq[(Expression, InternalRow => Any)] = Seq(
    Literal.create(null, IntegerType) -> nullDefault,
    Literal(-1) -> (_ => -1),
    dflt -> (r => if (r.isNullAt(2)) null else r.getInt(2)),
    Add(dflt, Literal(1000)) -> (r => if (r.isNullAt(2)) null else r.getInt(2) + 1000)
  )

  private val cases: Seq[Case] = {
    val offsets = Seq(0, 1, 2, 3, 7, 250)
    val intCases = for {
      (offset, oi) <- offsets.zipWithIndex
      isLead <- Seq(true, false)
      ignoreNulls <- Seq(false, true)
    } yield {
      val (default, expected) =
        intDefaults((oi + (if (isLead) 0 else 1) + (if (ignoreNulls) 2 else 0)) % 4)
      val f =
        if (isLead) lead(x, offset, default, ignoreNulls) else lag(x, offset, default, ignoreNulls)
      Case(f, 1, if (isLead) offset else -offset, ignoreNulls, expected)
    }
    val negative =
      for (ignoreNulls <- Seq(false, true)) yield Seq(
        Case(lead(x, -2, Literal(-5), ignoreNulls), 1, -2, ignoreNulls, _ => -5),
        Case(lag(x, -3, dflt, ignoreNulls), 1, 3, ignoreNulls, intDefaults(2)._2))
    val zz = UTF8String.fromString("zz")
    val strings = Seq(
      Case(lead(s, 1, Literal(zz), ignoreNulls = false), 3, 1, ignoreNulls = false, _ => zz),
      Case(lead(s, 2, Literal.create(null, StringType), ignoreNulls = true), 3, 2,
        ignoreNulls = true, nullDefault),
      Case(lag(s, 1, Literal.create(null, StringType), ignoreNulls = true), 3, -1,
        ignoreNulls = true, nullDefault),
      Case(lag(s, 3, Literal(zz), ignoreNulls = false), 3, -3, ignoreNulls = false, _ => zz)
    )
    intCases ++ negative.flatten ++ strings
  }

  private lazy val layout = layoutOf(cases.map(c => win(c.function, order)), order, schema)

  /** The naive definition: the |offset|-th (non-null) row strictly after/before row i. */
  private def reference(rows: IndexedSeq[InternalRow], c: Case): IndexedSeq[Any] = {
    val dt = schema(c.input).dataType
    val values = rows.map(r => if (r.isNullAt(c.input)) null else r.get(c.input, dt))
    val n = rows.size
    rows.indices.map { i =>
      val source: Option[Int] =
        if (!c.ignoreNulls || c.offset == 0) Some(i + c.offset).filter(j => j >= 0 && j < n)
        else {
          val candidates =
            if (c.offset > 0) (i + 1 until n).filter(values(_) != null)
            else (0 until i).reverse.filter(values(_) != null)
          candidates.lift(math.abs(c.offset) - 1)
        }
      source.map(values(_)).getOrElse(c.default(rows(i)))
    }
  }

  private def randomRow(r: Random, i: Int, shape: Shape): InternalRow = row(
    i,
    randomValue(IntegerType, r, shape.copy(specialFraction = 0)),
    randomValue(IntegerType, r, shape.copy(nullFraction = 0.3, specialFraction = 0)),
    randomValue(StringType, r, shape)
  )

  test("random partitions of every size 0..200, all offsets and defaults, both evaluators") {
    val r = new Random(21)
    val evaluators = flavors.map(f => f -> f.create(layout))
    val feed = unsafeFeed(schema)
    for (n <- r.shuffle((0 to 200).toVector)) {
      val shape = randomShape(r, n)
      val rows = (0 until n).map(i => randomRow(r, i, shape))
      val perCase = cases.map(c => reference(rows, c))
      val exp: Results = rows.indices.map(i => perCase.map(_(i)).toIndexedSeq)
      for ((flavor, ev) <- evaluators) {
        val actual = runPartition(ev, layout, rows, feed)
        firstDifference(exp, actual, layout, rows, schema).foreach { d =>
          fail(s"[$flavor, n=$n, $shape] $d")
        }
      }
    }
  }

  /** Single-function results on both evaluators (which must agree). */
  private def results(function: Expression, xs: Seq[Any], defaults: Seq[Any] = Nil): Seq[Any] = {
    val l = layoutOf(Seq(win(function, order)), order, schema)
    val rows = xs.indices.map(i => row(i, xs(i), defaults.lift(i).orNull, null))
    val all = flavors.map(f => runPartition(f.create(l), l, rows).map(_(0)))
    assert(all(0) == all(1), s"interpreted ${all(0)} vs generated ${all(1)}")
    all(0)
  }

  private val xs = Seq[Any](1, null, 3, null, null, 6)
  private val none = Literal.create(null, IntegerType)

  test("hand-computed: lead and lag respecting nulls") {
    assert(results(lead(x, 1, none, ignoreNulls = false), xs) == Seq(null, 3, null, null, 6, null))
    assert(results(lag(x, 1, none, ignoreNulls = false), xs) == Seq(null, 1, null, 3, null, null))
    assert(results(lag(x, 2, Literal(0), ignoreNulls = false), xs) == Seq(0, 0, 1, null, 3, null))
    assert(results(lead(x, 5, Literal(0), ignoreNulls = false), xs) == Seq(6, 0, 0, 0, 0, 0))
    assert(results(lead(x, 6, Literal(0), ignoreNulls = false), xs) == Seq.fill(6)(0))
    assert(results(lag(x, 250, Literal(9), ignoreNulls = false), xs) == Seq.fill(6)(9))
  }

  test("hand-computed: IGNORE NULLS skips nulls, strictly after/before the current row") {
    assert(results(lead(x, 1, none, ignoreNulls = true), xs) == Seq(3, 3, 6, 6, 6, null))
    assert(results(lead(x, 2, none, ignoreNulls = true), xs) == Seq(6, 6, null, null, null, null))
    assert(results(lag(x, 1, none, ignoreNulls = true), xs) == Seq(null, 1, 1, 3, 3, 3))
    assert(results(lag(x, 2, none, ignoreNulls = true), xs) == Seq(null, null, null, 1, 1, 1))
    assert(results(lag(x, 3, Literal(-1), ignoreNulls = true), xs) == Seq.fill(6)(-1))
    // all null input: always the default
    assert(results(lead(x, 1, Literal(7), ignoreNulls = true), Seq(null, null, null)) == Seq(7, 7,
      7))
  }

  test(
    "hand-computed: offset 0 returns the current row's input, null or not, even with IGNORE NULLS") {
    for (ignoreNulls <- Seq(false, true)) {
      assert(results(lead(x, 0, Literal(-1), ignoreNulls), xs) == xs)
      assert(results(lag(x, 0, Literal(-1), ignoreNulls), xs) == xs)
    }
  }

  test("hand-computed: the default is evaluated on the current row") {
    val ds = Seq[Any](10, 20, null, 40, 50, 60)
    assert(results(lead(x, 2, dflt, ignoreNulls = false), xs, ds) == Seq(3, null, null, 6, 50, 60))
    assert(results(lag(x, 1, Add(dflt, Literal(1)), ignoreNulls = true), xs, ds) ==
      Seq(11, 1, 1, 3, 3, 3))
  }

  test("hand-computed: negative offsets flip the direction") {
    assert(results(lead(x, -1, none, ignoreNulls = false), xs) == Seq(null, 1, null, 3, null, null))
    assert(results(lag(x, -1, none, ignoreNulls = true), xs) == Seq(3, 3, 6, 6, 6, null))
  }

  test("hand-computed: empty and one-row partitions") {
    assert(results(lead(x, 1, Literal(4), ignoreNulls = true), Nil) == Nil)
    assert(results(lead(x, 1, Literal(4), ignoreNulls = true), Seq(1)) == Seq(4))
    assert(results(lag(x, 1, none, ignoreNulls = false), Seq(null)) == Seq(null))
  }
}
