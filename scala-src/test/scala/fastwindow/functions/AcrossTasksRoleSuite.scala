package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.WindowTestKit._
import fastwindow.model.AcrossTasksRole
import fastwindow.model.AcrossTasksRole.{HaloRows, InOneTask, PrefixState, RowsInReach}

/**
 * The role each family gives its functions across tasks ([[FunctionFamily.acrossTasks]]): one
 * function of every family, over the frames that decide its role, and a check that every family
 * in the registry is asked (a family added without a declaration keeps its functions in one
 * task, and says so).
 */
class AcrossTasksRoleSuite extends AnyFunSuite {

  private val o = attr("o", IntegerType)
  private val x = attr("x", LongType)
  private val d = attr("d", DoubleType)
  private val s = attr("s", StringType)
  private val byO = Seq(asc(o))

  private def rows(lower: Int, upper: Int) =
    SpecifiedWindowFrame(RowFrame, Literal(lower), Literal(upper))
  private val shrinking = SpecifiedWindowFrame(RowFrame, CurrentRow, UnboundedFollowing)

  /** The role of `function` over `frame` (its own for window functions). */
  private def roleOf(function: Expression, frame: WindowFrame = runningRange,
      exactFloats: Boolean = false, maxHalo: Int = 1000): AcrossTasksRole = {
    val spec = planOf(Seq(win(function, byO, frame)), byO).functions.head
    WindowSupport.familyOf(spec).acrossTasksOf(spec, exactFloats, maxHalo)
  }

  test("ranking functions start from the rows before their range") {
    Seq(RowNumber(), Rank(Seq(o)), DenseRank(Seq(o)), PercentRank(Seq(o)), CumeDist(),
      NTile(Literal(4))).foreach(f => assert(roleOf(f) == PrefixState, f))
  }

  test("lag and lead read rows around their range; with IGNORE NULLS rows with a value") {
    assert(roleOf(Lag(x, Literal(3), Literal(null), false)) == HaloRows(3, 0))
    assert(roleOf(Lead(x, Literal(2), Literal(null), false)) == HaloRows(0, 2))
    assert(roleOf(Lag(x, Literal(3), Literal(null), true)) == HaloRows(3, 0, Some(x)))
  }

  test("aggregates: prefix state where states merge, halos over bounded frames") {
    assert(roleOf(agg(sumOf(x))) == PrefixState)
    assert(roleOf(agg(Max(s)), wholeRows) == PrefixState) // one value: merged exactly
    assert(roleOf(agg(sumOf(x)), rows(-2, 1)) == HaloRows(2, 1))
    assert(roleOf(agg(sumOf(x)), shrinking) == PrefixState)
    assert(roleOf(agg(Average(d))) == PrefixState) // within rounding, by default
    assert(roleOf(agg(Average(d)), exactFloats = true).isInstanceOf[InOneTask])
    assert(roleOf(agg(StddevSamp(d))).isInstanceOf[InOneTask]) // floating moments
    val byValue = SpecifiedWindowFrame(RangeFrame, UnaryMinus(Literal(5)), Literal(5))
    assert(roleOf(agg(sumOf(x)), byValue).isInstanceOf[RowsInReach])
    assert(roleOf(agg(sumOf(x)), SpecifiedWindowFrame(RowFrame, Literal(-2), UnboundedFollowing))
        .isInstanceOf[InOneTask])
  }

  test("nth_value keeps its first rows up to the halo limit") {
    val nth = NthValue(x, Literal(3), false)
    assert(roleOf(nth) == PrefixState)
    assert(roleOf(nth, maxHalo = 2).isInstanceOf[InOneTask])
    assert(roleOf(nth, shrinking) == HaloRows(0, 2))
  }

  test("functions over a buffered frame read the rows of a bounded frame") {
    assert(roleOf(agg(CollectList(x)), rows(-1, 1)) == HaloRows(1, 1))
    assert(roleOf(agg(CollectList(x))).isInstanceOf[InOneTask]) // a running frame
  }

  test("every family of the registry declares or refuses, with a reason") {
    val declared = WindowSupport.families.filter { family =>
      family.getClass.getMethods.exists(m =>
        m.getName == "acrossTasks" &&
          m.getDeclaringClass != classOf[FunctionFamily[_]])
    }
    // Families left to the default say why, in the words explain shows.
    assert(AcrossTasksRole.NotYet.why.nonEmpty)
    assert(
      declared.contains(RankingFamily) && declared.contains(OffsetFamily) &&
        declared.contains(AggregateFamily) && declared.contains(NthValueFamily) &&
        declared.contains(PercentileFamily),
      declared
    )
    assert(!declared.contains(RowByRowFamily)) // user-defined functions: one task
  }
}
