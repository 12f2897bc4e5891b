package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate.{Average, First, Last, Max, Min, StddevSamp}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.WindowTestKit._
import fastwindow.model.{FallbackReason, WindowPlan}

/**
 * Where a window runs beside DataFusion Comet ([[CometPlacement]]), from the session's settings
 * and each function family's fact: no Comet session is needed to decide, so none is started here
 * (tests/test_comet.py runs the decisions in one).
 */
class CometPlacementSuite extends AnyFunSuite {

  private val id = attr("id", LongType)
  private val v = attr("v", DoubleType)
  private val s = attr("s", StringType)
  private val dec = attr("dec", DecimalType(12, 2))
  private val byId = Seq(asc(id))
  private val lastTen = SpecifiedWindowFrame(RowFrame, Literal(-9), CurrentRow)

  private def conf(settings: (String, String)*): SQLConf = {
    val c = new SQLConf
    (Seq("spark.plugins" -> CometPlacement.Plugin, "spark.memory.offHeap.enabled" -> "true") ++
      settings).foreach { case (k, value) => c.setConfString(k, value) }
    c
  }

  private def plan(functions: Expression*): WindowPlan =
    planOf(functions.map(f => win(f, byId, lastTen)), byId)

  private def decide(p: WindowPlan, c: SQLConf, partitioned: Boolean = true, slots: Int = 2) =
    CometPlacement.decide(p, partitioned, c, slots)

  private def left(d: CometPlacement.Decision): Boolean = d match {
    case CometPlacement.Leave(reason) => reason.id == FallbackReason.LeftToComet
    case _ => false
  }

  private val rowNumber = plan(RowNumber())
  private val lagOfV = Lag(v, Literal(1), Literal(null, DoubleType), ignoreNulls = false)
  private val lag = plan(lagOfV)

  test("without Comet in the session (or with its windows off) nothing is left to it") {
    val none = new SQLConf
    assert(decide(rowNumber, none) == CometPlacement.NoComet)
    Seq("spark.comet.enabled", "spark.comet.exec.enabled", "spark.comet.exec.window.enabled",
      "spark.memory.offHeap.enabled").foreach { key =>
      assert(decide(rowNumber, conf(key -> "false")) == CometPlacement.NoComet, key)
    }
    assert(left(decide(rowNumber,
          conf("spark.memory.offHeap.enabled" -> "false",
            "spark.comet.exec.onHeap.enabled" -> "true"))))
    val byExtensions = new SQLConf
    byExtensions.setConfString("spark.sql.extensions", CometPlacement.Extensions)
    byExtensions.setConfString("spark.memory.offHeap.enabled", "true")
    assert(left(decide(rowNumber, byExtensions)))
  }

  test("AUTO: Comet's native windows measured faster there are left, the others taken") {
    val auto = conf()
    assert(left(decide(rowNumber, auto)))
    assert(left(decide(planOf(Seq(win(agg(Max(v)), byId)), byId), auto)), "a running max")
    assert(decide(plan(agg(Max(v))), auto).isInstanceOf[CometPlacement.Take], "a moving max")
    assert(decide(planOf(Seq(win(agg(Last(v, ignoreNulls = true)), byId)), byId), auto)
        .isInstanceOf[CometPlacement.Take], "a forward fill: last over a running frame")
    assert(left(decide(planOf(Seq(win(agg(First(v, ignoreNulls = false)), byId, lastTen)), byId),
          auto)),
      "first over a moving frame")
    assert(decide(lag, auto).isInstanceOf[CometPlacement.Take], "lag: faster on fastwindow")
    val lagAndPercentRank =
      planOf(Seq(win(lagOfV, byId), win(PercentRank(byId.map(_.child)), byId)), byId)
    decide(lagAndPercentRank, auto) match {
      case CometPlacement.Leave(reason) =>
        assert(reason.message.contains("holds each window partition whole"), reason)
      case other => fail(s"lag beside percent_rank: $other")
    }
    assert(decide(plan(agg(Average(v))), auto).isInstanceOf[CometPlacement.Take], "moving avg")
    for (notNative <- Seq(plan(agg(StddevSamp(v))), plan(agg(Min(s))), plan(agg(sumOf(dec))),
        plan(RowNumber(), agg(StddevSamp(v))))) {
      decide(notNative, auto) match {
        case CometPlacement.Take(why) => assert(why.contains("Spark's WindowExec"), why)
        case other => fail(s"$notNative: $other")
      }
    }
  }

  test("AUTO: a window without PARTITION BY goes to Comet's one task below the slots setting") {
    val auto = conf()
    assert(left(decide(rowNumber, auto, partitioned = false, slots = 2)))
    assert(left(decide(lag, auto, partitioned = false, slots = 2)), "even where faster per key")
    val lagIgnoringNulls = plan(Lag(v, Literal(1), Literal(null, DoubleType), ignoreNulls = true))
    val forwardFill = planOf(Seq(win(agg(Last(v, ignoreNulls = true)), byId)), byId)
    for ((p, what) <- Seq(lagIgnoringNulls -> "lag IGNORE NULLS", forwardFill -> "last")) {
      decide(p, auto, partitioned = false, slots = 2) match {
        case CometPlacement.Take(why) => assert(why.contains("one native task too"), why)
        case other => fail(s"$what: $other")
      }
    }
    assert(decide(rowNumber, auto, partitioned = false, slots = 8)
        .isInstanceOf[CometPlacement.Take])
    val two = conf("spark.fastwindow.besideComet.minSlotsAcrossTasks" -> "2")
    assert(decide(rowNumber, two, partitioned = false, slots = 2)
        .isInstanceOf[CometPlacement.Take])
  }

  test("TAKE_ALL takes every window and group limit; LEAVE_ALL leaves every native one") {
    val takeAll = conf("spark.fastwindow.besideComet" -> "TAKE_ALL")
    assert(decide(rowNumber, takeAll).isInstanceOf[CometPlacement.Take])
    assert(CometPlacement.decideGroupLimit(takeAll).isInstanceOf[CometPlacement.Take])
    val leaveAll = conf("spark.fastwindow.besideComet" -> "LEAVE_ALL")
    assert(left(decide(lag, leaveAll)))
    assert(decide(plan(agg(StddevSamp(v))), leaveAll).isInstanceOf[CometPlacement.Take])
    assert(left(CometPlacement.decideGroupLimit(conf())))
    assert(CometPlacement.decideGroupLimit(conf("spark.comet.exec.windowGroupLimit.enabled" ->
        "false")) == CometPlacement.NoComet)
  }
}
