package fastwindow.planning

import org.apache.spark.sql.catalyst
  .expressions.{Attribute, BoundReference, EvalMode, Expression, SortOrder, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.{Average, DeclarativeAggregate, Sum}
import org.apache.spark.sql.fastwindow.shims.ArithmeticShim
import org.apache.spark.sql.types.{DecimalType, LongType}

import fastwindow.config.FastWindowConf
import fastwindow.exec.acrosstasks.{RangeOrder, StateFold}
import fastwindow
  .functions.{AggregateFamily, AggregateSpec, NthValueSpec, OffsetSpec, OrderDependence, RankingSpec, SlidingGuard}
import fastwindow
  .model.{BufferedFrameFunction, FilteredAggregate, FrameShape, FunctionSpec, RangeEdge, Spread, WindowPlan}

/**
 * Decides how a window without PARTITION BY is spread over tasks (see [[Spread]]): each function
 * gets a role, or the reason it needs every row of the window in one task.
 *
 *  - **halo**: its result for a row reads only rows a bounded distance away (lag/lead, any
 *    function over a ROWS frame bounded on both sides), so a task needs only that many rows of
 *    its neighbours' ranges; with IGNORE NULLS, that many rows with a value, however far away
 *    (see `Spread.NonNullHalo`); over a RANGE frame bounded by value
 *    offsets, the rows whose keys its edges reach (`Spread.ValueReach`: how many is known only
 *    at run time, when a range that needs more than the summaries hold makes the ranges run in
 *    one task);
 *  - **seeded**: its state runs from the first row and can start from the rows before the range:
 *    row_number and rank (a count), dense_rank (a count of peer groups), percent_rank, cume_dist
 *    and ntile (a count and the window's size), aggregates over running frames (the state of the
 *    rows before), whole frames (the state of every row) or frames shrinking from the current
 *    row to the end (the state of the rows after: `FrameShape.shrinksFromCurrentRow`; an
 *    integral sum under ANSI there only while no sum of the window can overflow, checked at run
 *    time, see `fastwindow.exec.acrosstasks.RangeSeeds`) whose partial states merge into
 *    exactly the state Spark's row loop reaches ([[OrderDependence.merge]]): free of the order
 *    (min and max of strings too: a state of one value, which Spark's projections copy);
 *    integral sums under ANSI, whose merge is checked (an overflow there moves the summary to
 *    Spark's order, see `fastwindow.exec.acrosstasks.RangeSeeds`); floating ones within
 *    rounding unless `spark.fastwindow.exactFloats`; first, last and nth_value over such frames
 *    (the state of a few rows before the range: `fastwindow.exec.acrosstasks.DecidingRows`),
 *    of any type.
 *
 * A window with both runs as two operators over the same ranges, the halo one below (it reads
 * the rows as they come from the shuffle), the seeded one above. A window without ORDER BY is
 * spread when all its functions are aggregates over the whole window that do not depend on the
 * rows' order: its rows go to ranges of a hash of their columns (see `FastWindowStrategy`), and
 * every task is seeded with the merged state of all of them.
 */
object AcrossTasksSupport {

  /** What one function needs from the ranges around its own. */
  sealed trait Role

  /** `nonNullOf`: lag/lead IGNORE NULLS, which count only the rows where that input has a value. */
  final case class Halo(before: Int, after: Int, nonNullOf: Option[Expression] = None) extends Role

  /** A function over a RANGE frame bounded by value offsets: the rows whose keys it reaches. */
  final case class Reach(frame: FrameShape.SlidingRange) extends Role
  case object Seeded extends Role

  /**
   * One task, or ranges: the halo operator's spread (if any), whether a seeded one runs too, and
   * for each output expression whether the halo operator computes it.
   */
  sealed trait Decision
  final case class OneTask(spread: Spread.OneTask) extends Decision
  final case class Split(halos: Option[Spread.Halos], seededToo: Boolean,
      haloOutputs: Seq[Boolean], seedsAfterMayOverflow: Boolean = false)
    extends Decision {

    /**
     * Whether the ranges may still be evaluated in one task at run time (see
     * `fastwindow.exec.acrosstasks.RangeSeeds`): RANGE frames that reach further than the
     * summaries hold, or shrinking frames whose states after a range cannot be merged exactly
     * (`seedsAfterMayOverflow`).
     */
    def mayRunInOneTask: Boolean = halos.exists(_.reach.isDefined) || seedsAfterMayOverflow
  }

  def decide(plan: WindowPlan, orderSpec: Seq[SortOrder], input: Seq[Attribute]): Decision = {
    val exactFloats = FastWindowConf.EXACT_FLOATS.get()
    val maxHalo = FastWindowConf.ACROSS_TASKS_MAX_HALO_ROWS.get()
    val roles = plan.functions.map(f =>
      roleOf(f, exactFloats, maxHalo).left.map(why =>
        s"${f.describe} $why"))
    roles.collectFirst { case Left(why) => why } match {
      case Some(why) => OneTask(Spread.OneTask(why))
      case None if orderSpec.isEmpty =>
        plan.functions.find(!overWholeWindow(_)) match {
          case Some(f) => OneTask(Spread.OneTask(s"${f.describe} is decided by the order of the " +
                "rows, which a window without ORDER BY leaves to the order they reach its one task"))
          case None => Split(None, seededToo = true, plan.outputs.map(_ => false))
        }
      case None =>
        val role = roles.map(_.toOption.get)
        val halos = role.collect { case h: Halo => h }
        val reached = role.collect { case Reach(frame) => frame }
        val (nonNull, counted) = halos.partition(_.nonNullOf.isDefined)
        val widest = halos.map(h => math.max(h.before, h.after)).foldLeft(0)(math.max)
        // Each output reads one function (a slot reference, maybe wrapped in a cast).
        val outputRoles = plan.outputs.map(_.collect { case b: BoundReference => role(b.ordinal) })
        val unorderable =
          if (halos.isEmpty && reached.isEmpty) None else RangeOrder.unorderable(input)
        if (widest > maxHalo) {
          OneTask(Spread.OneTask(s"it reads $widest rows around each row, " +
              s"more than spark.fastwindow.acrossTasks.maxHaloRows ($maxHalo)"))
        } else if (unorderable.isDefined) {
          OneTask(
            Spread.OneTask(s"its rows hold a column of type ${unorderable.get.simpleString}, " +
              "which has no order to hand rows with equal ORDER BY keys on to the next range by"))
        } else if (outputRoles.exists(rs => rs.distinct.size > 1 && rs.exists(_ == Seeded))) {
          OneTask(Spread.OneTask("an output combines functions of both kinds"))
        } else {
          val haloOutputs = outputRoles.map(_.exists(_ != Seeded))
          val reach =
            if (reached.isEmpty) None else Some(Spread.ValueReach(reached.distinct, maxHalo))
          Split(
            if (halos.isEmpty && reach.isEmpty) None
            else {
              Some(Spread.Halos(counted.map(_.before).foldLeft(0)(math.max),
                  counted.map(_.after).foldLeft(0)(math.max), nonNullHalos(nonNull), reach))
            },
            seededToo = haloOutputs.contains(false),
            haloOutputs,
            seedsAfterMayOverflow = seedsAfterMayOverflow(plan)
          )
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
      a.frame == FrameShape.WholePartition && !StateFold.decidedByRows(a.function)
    case _ => false
  }

  /** lag/lead IGNORE NULLS's reach, per input: the most rows with a value before and after. */
  private def nonNullHalos(halos: Seq[Halo]): Seq[Spread.NonNullHalo] =
    halos.foldLeft(Seq.empty[Spread.NonNullHalo]) { (acc, h) =>
      val input = h.nonNullOf.get
      acc.indexWhere(_.input.semanticEquals(input)) match {
        case -1 => acc :+ Spread.NonNullHalo(input, h.before, h.after)
        case i => acc.updated(i,
            acc(i).copy(before = math.max(acc(i).before, h.before),
              after = math.max(acc(i).after, h.after)))
      }
    }

  /** The role of `f`, or why it needs all rows in one task (completing "<function> ..."). */
  def roleOf(f: FunctionSpec, exactFloats: Boolean, maxHalo: Int): Either[String, Role] = f match {
    // row_number, rank: the rows before; dense_rank: the peer groups before; percent_rank,
    // cume_dist, ntile: + the window's size.
    case _: RankingSpec => Right(Seeded)
    case o: OffsetSpec =>
      if (o.ignoreNulls && o.offset != 0) {
        Right(halo(o.offset, o.offset).copy(nonNullOf = Some(o.input)))
      } else Right(halo(o.offset, o.offset))
    case a: AggregateSpec => a.frame match {
        case FrameShape.RunningRows | FrameShape.RunningRange | FrameShape.WholePartition =>
          mergeable(a.function, exactFloats)
        // The state of the ranges after, merged on the right of each suffix of the range.
        case shrinking if shrinking.shrinksFromCurrentRow && !a.inSparkOrder =>
          mergeable(a.function, exactFloats)
        case other => bounded(other)
      }
    case n: NthValueSpec => n.frame match {
        // The state of the rows before a range is that of their first n rows (that count).
        case FrameShape.RunningRows | FrameShape.RunningRange | FrameShape.WholePartition =>
          if (n.offset > maxHalo) Left(s"keeps the first ${n.offset} rows of each range, more " +
            s"than spark.fastwindow.acrossTasks.maxHaloRows ($maxHalo)")
          else Right(Seeded)
        // The n-th row from the current row (its peer group's first): at most n - 1 rows after
        // it, or with IGNORE NULLS the n-th with a value, however far.
        case shrinking if shrinking.shrinksFromCurrentRow =>
          if (n.function.ignoreNulls) {
            Right(Halo(0, n.offset, nonNullOf = Some(n.function.input)))
          } else Right(halo(0, n.offset - 1))
        case other => bounded(other)
      }
    case b: BufferedFrameFunction => bounded(b.frame)
    case _ => Left("is not yet computed across tasks")
  }

  private def halo(lower: Int, upper: Int): Halo = Halo(math.max(0, -lower), math.max(0, upper))

  private def bounded(frame: FrameShape): Either[String, Role] = frame match {
    case FrameShape.SlidingRows(Some(lower), Some(upper)) => Right(halo(lower, upper))
    case r: FrameShape.SlidingRange if !r.edges.contains(RangeEdge.Unbounded) =>
      // Without a value offset (CURRENT ROW on both sides) the frame is the peers, in one range.
      Right(if (r.key.isEmpty) halo(0, 0) else Reach(r))
    case _ => Left("is not yet computed across tasks over this frame (supported: ROWS frames " +
        "bounded on both sides, RANGE frames bounded on both sides, and running, whole and " +
        "shrinking frames from the current row of aggregates whose states merge)")
  }

  private def mergeable(agg: DeclarativeAggregate, exactFloats: Boolean): Either[String, Role] = {
    val merge = AggregateFamily.orderDependence(agg).map(_.merge)
    // A state of strings or nested values is one value (min, max: merged exactly) or that of a
    // row the summaries keep (first, last: see `StateFold`).
    if (!fixedLength(agg) && !StateFold.decidedByRows(agg) &&
      !merge.contains(OrderDependence.Exact)) Left(stateOfValues)
    else merge match {
      case Some(OrderDependence.Exact) => Right(Seeded)
      case Some(OrderDependence.ExactBelowOverflow) if checkedSum(agg) => Right(Seeded)
      // first/last: the state of the rows before a range is that of one row of them.
      case Some(OrderDependence.ExactInRowOrder) if StateFold.decidedByRows(agg) =>
        Right(Seeded)
      case Some(OrderDependence.WithinRounding) if exactFloats =>
        Left("is rounded in row order (spark.fastwindow.exactFloats=true)")
      case Some(OrderDependence.WithinRounding) if sumOrAverage(agg) => Right(Seeded)
      case Some(OrderDependence.WithinRounding) =>
        Left("merges floating moments, whose products of infinities may give NaN where Spark's " +
          "row loop gives an infinity")
      case _ => Left("has partial states that merge exactly only in row order")
    }
  }

  /** Whether `agg`'s state holds no pointer into a row (fixed-length or decimal fields). */
  private def fixedLength(agg: DeclarativeAggregate): Boolean = agg.aggBufferAttributes.forall(a =>
    UnsafeRow.isFixedLength(a.dataType) || a.dataType.isInstanceOf[DecimalType])

  private val stateOfValues = "is not yet computed across tasks (its state holds strings or " +
    "nested values, which only first, last, nth_value and exact merges take across tasks)"

  /** A sum or an average: its merge adds partial sums, as Spark's loop adds rows. */
  private[planning] def sumOrAverage(agg: DeclarativeAggregate): Boolean = agg match {
    case FilteredAggregate(inner, _) => sumOrAverage(inner)
    case _: Sum | _: Average => true
    case _ => false
  }

  /**
   * An integral sum under ANSI: an overflow is an error, so a merge can check for one. (Decimal
   * sums of more than 28 digits and interval sums stay in one task: where their partial sums
   * overflow is decided by the order.)
   */
  private def checkedSum(agg: DeclarativeAggregate): Boolean = agg match {
    case FilteredAggregate(inner, _) => checkedSum(inner)
    case s: Sum => s.dataType == LongType && ArithmeticShim.evalMode(s) == EvalMode.ANSI
    case _ => false
  }

}
