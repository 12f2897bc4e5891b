package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Literal, NthValue, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.aggregate.{First, Last}
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/**
 * The seeded aggregates' states folded over rows as a task reads them, one row object whose bytes
 * each next row overwrites: first, last and nth_value of strings keep their own copies of the
 * values, not pointers into that row (Spark's mutable projections copy them; this holds
 * `StateFold` to that).
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
}
