package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, AttributeReference, BindReferences}
import org.apache.spark.sql.catalyst.expressions.SortOrder
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.types.{DoubleType, LongType}
import org.scalatest.funsuite.AnyFunSuite

/**
 * The order of a range's rows under halo functions: two rows compare equal only when they hold
 * the same values, even where the ORDER BY key's order calls 0.0 and -0.0 equal.
 */
class RangeOrderSuite extends AnyFunSuite {

  private val key = AttributeReference("key", DoubleType)()
  private val other = AttributeReference("other", LongType)()
  private val order = RangeOrder.withTieBreak(Seq(SortOrder(key, Ascending)), Seq(key, other))
  private val ordering =
    new LazilyGeneratedOrdering(order.map(BindReferences.bindReference(_, Seq(key, other))))

  test("rows equal under the ORDER BY but not in their bytes are not ties") {
    val zero = InternalRow(0.0, 1L)
    val negativeZero = InternalRow(-0.0, 1L)
    assert(ordering.compare(zero, negativeZero) != 0)
    assert(math.signum(ordering.compare(zero, negativeZero)) ==
      -math.signum(ordering.compare(negativeZero, zero)))
    assert(ordering.compare(zero, InternalRow(0.0, 1L)) == 0)
    assert(ordering.compare(zero, InternalRow(0.0, 2L)) < 0)
    assert(ordering.compare(InternalRow(-1.0, 9L), negativeZero) < 0)
  }

  test("byte-stable ORDER BY keys add no tie-break of their spelling") {
    val id = AttributeReference("id", LongType)()
    assert(RangeOrder.withTieBreak(Seq(SortOrder(id, Ascending)), Seq(id, key)).length == 2)
    assert(order.length == 3)
  }
}
