package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, SortOrder}

import fastwindow.config.FastWindowConf
import fastwindow.exec.acrosstasks.RangeOrder
import fastwindow.functions.{AggregateSpec, AggregatesAcrossTasks, SlidingGuard, WindowSupport}
import fastwindow.model.{FrameShape, FunctionSpec, Spread, WindowPlan}
import fastwindow.model.AcrossTasksRole.{HaloRows, InOneTask, PrefixState, RowsInReach}

/**
 * Decides how a window without PARTITION BY is spread over tasks (see [[Spread]]) from the role
 * each function's family gives it ([[fastwindow.model.AcrossTasksRole]]: prefix state, halo rows,
 * rows in reach of a RANGE frame, or one task and why), or the reason the window needs every row
 * in one task.
 *
 * A window with both prefix-state and halo functions runs as two operators over the same ranges,
 * the halo one below (it reads the rows as they come from the shuffle), the seeded one above. A
 * window without ORDER BY is spread when all its functions are aggregates over the whole window
 * that do not depend on the rows' order: its rows go to ranges of a hash of their columns (see
 * `FastWindowStrategy`), and every task is seeded with the merged state of all of them.
 */
object AcrossTasksSupport {

  /**
   * Ranges: the halo operator's spread (if any), whether a seeded one runs too, and for each
   * output expression whether the halo operator computes it.
   */
  final case class Split(halos: Option[Spread.Halos], seededToo: Boolean,
      haloOutputs: Seq[Boolean], seedsAfterMayOverflow: Boolean = false) {

    /**
     * Whether the ranges may still be evaluated in one task at run time (see
     * `fastwindow.exec.acrosstasks.RangeSeeds`): RANGE frames that reach further than the
     * summaries hold, or shrinking frames whose states after a range cannot be merged exactly
     * (`seedsAfterMayOverflow`).
     */
    def mayRunInOneTask: Boolean = halos.exists(_.reach.isDefined) || seedsAfterMayOverflow
  }

  /** Ranges, or one task and why, from the role its family gives each function. */
  def decide(plan: WindowPlan, orderSpec: Seq[SortOrder],
      input: Seq[Attribute]): Either[Spread.OneTask, Split] = {
    val exactFloats = FastWindowConf.EXACT_FLOATS.get()
    val maxHalo = FastWindowConf.ACROSS_TASKS_MAX_HALO_ROWS.get()
    val role = plan.functions.map(f =>
      WindowSupport.familyOf(f).acrossTasksOf(f, exactFloats, maxHalo))
    plan.functions.zip(role).collectFirst { case (f, InOneTask(why)) =>
      s"${f.describe} $why"
    } match {
      case Some(why) => Left(Spread.OneTask(why))
      case None if orderSpec.isEmpty =>
        plan.functions.find(!overWholeWindow(_)) match {
          case Some(f) => Left(Spread.OneTask(s"${f.describe} is decided by the order of the " +
                "rows, which a window without ORDER BY leaves to the order they reach its one task"))
          case None => Right(Split(None, seededToo = true, plan.outputs.map(_ => false)))
        }
      case None =>
        val halos = role.collect { case h: HaloRows => h }
        val reached = role.collect { case RowsInReach(frame) => frame }
        val (nonNull, counted) = halos.partition(_.nonNullOf.isDefined)
        val widest = halos.map(h => math.max(h.before, h.after)).foldLeft(0)(math.max)
        // Each output reads one function (a slot reference, maybe wrapped in a cast).
        val outputRoles = plan.outputs.map(_.collect { case b: BoundReference => role(b.ordinal) })
        val unorderable =
          if (halos.isEmpty && reached.isEmpty) None else RangeOrder.unorderable(input)
        if (widest > maxHalo) {
          Left(Spread.OneTask(s"it reads $widest rows around each row, " +
              s"more than spark.fastwindow.acrossTasks.maxHaloRows ($maxHalo)"))
        } else if (unorderable.isDefined) {
          Left(
            Spread.OneTask(s"its rows hold a column of type ${unorderable.get.simpleString}, " +
              "which has no order to hand rows with equal ORDER BY keys on to the next range by"))
        } else if (outputRoles.exists(rs => rs.distinct.size > 1 && rs.contains(PrefixState))) {
          Left(Spread.OneTask("an output combines functions of both kinds"))
        } else {
          val haloOutputs = outputRoles.map(_.exists(_ != PrefixState))
          val reach =
            if (reached.isEmpty) None else Some(Spread.ValueReach(reached.distinct, maxHalo))
          Right(Split(
              if (halos.isEmpty && reach.isEmpty) None
              else {
                Some(Spread.Halos(counted.map(_.before).foldLeft(0)(math.max),
                    counted.map(_.after).foldLeft(0)(math.max), nonNullHalos(nonNull), reach))
              },
              seededToo = haloOutputs.contains(false),
              haloOutputs,
              seedsAfterMayOverflow = seedsAfterMayOverflow(plan)
            ))
        }
    }
  }

  /**
   * Whether the states of the rows after each range may fail to merge exactly: a frame shrinks
   * from the current row, and an aggregate of the window is guarded ([[SlidingGuard]]: integral
   * sums under ANSI, decimal sums and averages), whose sums may overflow in the ranges' order
   * where Spark's loop does not (see `fastwindow.exec.acrosstasks.RangeSeeds`). Counts, min/max,
   * first/last and LEGACY or floating sums over shrinking frames always merge.
   */
  private def seedsAfterMayOverflow(plan: WindowPlan): Boolean = {
    val aggregates = plan.functions.collect { case a: AggregateSpec => a }
    aggregates.exists(_.frame.shrinksFromCurrentRow) &&
    aggregates.exists(a => SlidingGuard.isGuarded(a.function))
  }

  /**
   * Whether `f`, one of the seeded functions of a window without ORDER BY, is an aggregate over the
   * whole window whose merged state does not depend on the rows' order (every row is a peer of
   * every other: first/last and nth_value would take whichever rows came first).
   */
  private def overWholeWindow(f: FunctionSpec): Boolean = f match {
    case a: AggregateSpec =>
      a.frame == FrameShape.WholePartition && !AggregatesAcrossTasks.decidedByRows(a.function)
    case _ => false
  }

  /** lag/lead IGNORE NULLS's reach, per input: the most rows with a value before and after. */
  private def nonNullHalos(halos: Seq[HaloRows]): Seq[Spread.NonNullHalo] =
    halos.foldLeft(Seq.empty[Spread.NonNullHalo]) { (acc, h) =>
      val input = h.nonNullOf.get
      acc.indexWhere(_.input.semanticEquals(input)) match {
        case -1 => acc :+ Spread.NonNullHalo(input, h.before, h.after)
        case i => acc.updated(i,
            acc(i).copy(before = math.max(acc(i).before, h.before),
              after = math.max(acc(i).after, h.after)))
      }
    }
}
