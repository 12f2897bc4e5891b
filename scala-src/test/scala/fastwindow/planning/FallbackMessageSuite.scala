package fastwindow.planning

import org.apache.spark.sql.catalyst
  .expressions.{Alias, Ascending, AttributeReference, CurrentRow, RowFrame, RowNumber, SortOrder, SpecifiedWindowFrame, UnboundedPreceding, WindowExpression, WindowSpecDefinition}
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, Window}
import org.apache.spark.sql.types.LongType
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.model.FallbackReason

/**
 * The WARN line of a window left to Spark names the window by its expressions: written while
 * planning, before the physical plan gives nodes ids, a node id would read "(unknown)".
 */
class FallbackMessageSuite extends AnyFunSuite {

  test("the fallback line shows the window's expressions, not an unassigned node id") {
    val k = AttributeReference("k", LongType)()
    val v = AttributeReference("v", LongType)()
    val spec = WindowSpecDefinition(Seq(k), Seq(SortOrder(v, Ascending)),
      SpecifiedWindowFrame(RowFrame, UnboundedPreceding, CurrentRow))
    val window = Window(Seq(Alias(WindowExpression(RowNumber(), spec), "rn")()), Seq(k),
      Seq(SortOrder(v, Ascending)), LocalRelation(k, v))
    val line = FastWindowStrategy.fallbackMessage(window,
      Seq(FallbackReason(FallbackReason.Disabled, "a reason")))
    assert(line.startsWith("fastwindow: a window operator stays on Spark's WindowExec: a reason."))
    assert(!line.contains("unknown") && line.contains("row_number()") && line.contains("AS rn"),
      line)
  }
}
