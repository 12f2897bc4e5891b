package fastwindow.exec.acrosstasks

import scala.util.{Failure, Random, Success, Try}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Literal, NthValue, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.aggregate.{First, Last}
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.config.CodegenMode

/**
 * The seeded aggregates' states folded over rows as a task reads them, one row object whose bytes
 * each next row overwrites: first, last and nth_value of strings keep their own copies of the
 * values, not pointers into that row (Spark's mutable projections copy them; this holds
 * `StateFold` to that); the fold fastwindow generates gives the states and errors Spark's
 * projections give.
 */
class StateFoldSuite extends AnyFunSuite {

  test("string states hold copies of the values, not the row they were read from") {
    val s = AttributeReference("s", StringType)()
    val fold = new StateFold(
      Seq(First(s, ignoreNulls = false), Last(s, ignoreNulls = true),
        NthValue(s, Literal(2), ignoreNulls = false)),
      Seq(s))
    val reused = UnsafeProjection.create(Array[DataType](StringType))
    // The first row is the longest, so the later ones are written over its bytes in place.
    val values = Seq("the first value, the longest", "second", "a third value", null)
    val rows = values.iterator.map(v => reused(InternalRow(UTF8String.fromString(v))))
    val state = fold.fold(fold.initialState, rows)
    reused(InternalRow(UTF8String.fromString("a later row")))
    def value(k: Int) = fold.slice(state, k).getUTF8String(0).toString
    assert(value(0) == "the first value, the longest")
    assert(value(1) == "a third value")
    assert(value(2) == "second")
  }

  test("the generated fold and Spark's projections give the same states and errors") {
    val random = new Random(20261207L)
    val seen = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
    for (config <- RangeSeedsPropertySuite.configs; trial <- 0 until 100) {
      val aggregates = config.seeded.flatMap(_.folded)
      val generated = new StateFold(aggregates, SplitRows.input, CodegenMode.CodegenOnly)
      val projected = new StateFold(aggregates, SplitRows.input, CodegenMode.NoCodegen)
      assert(generated.generates && !projected.generates, config.name)
      val rows = SplitRows.randomRows(random, wideKeys = false)
      // From the initial state and from a state part-way (the fold a map task starts).
      val start = Try(projected.fold(projected.initialState, rows.take(rows.length / 2).iterator))
        .getOrElse(projected.initialState)
      val rest = rows.drop(rows.length / 2)
      val expected = Try(projected.fold(start, rest.iterator))
      val got = Try(generated.fold(start, rest.iterator))
      def context = s"${config.name} trial $trial: ${rows.map(SplitRows.value).mkString(" ")}"
      (expected, got) match {
        case (Success(e), Success(g)) =>
          seen("folded") += 1
          val types = aggregates.flatMap(_.aggBufferAttributes).map(_.dataType)
          assert(e.toSeq(types) == g.toSeq(types), context)
        case (Failure(e: ArithmeticException), Failure(g: ArithmeticException)) =>
          seen("overflowed") += 1
          assert(e.getMessage == g.getMessage, context)
        case _ => fail(s"$expected against $got: $context")
      }
    }
    assert(seen("folded") > 100 && seen("overflowed") > 10, seen)
  }

  test("buffers that are not primitive are folded by Spark's projections") {
    val s = AttributeReference("s", StringType)()
    assert(!new StateFold(Seq(First(s, ignoreNulls = false)), Seq(s)).generates)
  }
}
