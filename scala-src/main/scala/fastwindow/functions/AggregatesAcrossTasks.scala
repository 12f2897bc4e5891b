package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{EvalMode, NthValue, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions
  .aggregate.{Average, DeclarativeAggregate, First, Last, Sum}
import org.apache.spark.sql.fastwindow.shims.ArithmeticShim
import org.apache.spark.sql.types.{DecimalType, LongType}

import fastwindow.model.{AcrossTasksRole, FilteredAggregate, FrameShape}

/**
 * How declarative aggregates run across tasks ([[AggregateFamily.acrossTasks]]): over running,
 * whole and shrinking frames, from the merged state of the ranges before (after) each range when
 * their partial states merge into exactly the state Spark's row loop reaches
 * ([[OrderDependence.merge]]): free of the order (min and max of strings too: a state of one
 * value, which Spark's projections copy); integral sums under ANSI, whose merge is checked (an
 * overflow there moves the summary to Spark's order, as does, over a whole frame, a sum of |x|
 * that could overflow in some order: see `fastwindow.exec.acrosstasks.RangeSeeds`);
 * floating ones within rounding unless `spark.fastwindow.exactFloats`; first, last and nth_value
 * (the state of a few rows before the range, of any type). Over bounded frames, the rows of
 * their frames.
 */
object AggregatesAcrossTasks {

  def role(spec: AggregateSpec, exactFloats: Boolean): AcrossTasksRole = spec.frame match {
    case FrameShape.RunningRows | FrameShape.RunningRange | FrameShape.WholePartition =>
      mergeable(spec.function, exactFloats)
    // The state of the ranges after, merged on the right of each suffix of the range.
    case shrinking if shrinking.shrinksFromCurrentRow && !spec.inSparkOrder =>
      mergeable(spec.function, exactFloats)
    case other => AcrossTasksRole.overBoundedFrame(other)
  }

  /** Whether `agg`'s state is that of a few rows (first, last, nth_value), kept across tasks. */
  def decidedByRows(agg: DeclarativeAggregate): Boolean = agg match {
    case _: First | _: Last | _: NthValue => true
    case _ => false
  }

  /** A sum or an average: its merge adds partial sums, as Spark's loop adds rows. */
  def sumOrAverage(agg: DeclarativeAggregate): Boolean = agg match {
    case FilteredAggregate(inner, _) => sumOrAverage(inner)
    case _: Sum | _: Average => true
    case _ => false
  }

  private def mergeable(agg: DeclarativeAggregate, exactFloats: Boolean): AcrossTasksRole = {
    val merge = AggregateFamily.orderDependence(agg).map(_.merge)
    // A state of strings or nested values is one value (min, max: merged exactly) or that of a
    // row the summaries keep (first, last: see `StateFold`).
    if (!fixedLength(agg) && !decidedByRows(agg) && !merge.contains(OrderDependence.Exact)) {
      AcrossTasksRole.InOneTask(StateOfValues)
    } else merge match {
      case Some(OrderDependence.Exact) => AcrossTasksRole.PrefixState
      case Some(OrderDependence.ExactBelowOverflow) if checkedSum(agg) =>
        AcrossTasksRole.PrefixState
      // first/last: the state of the rows before a range is that of one row of them.
      case Some(OrderDependence.ExactInRowOrder) if decidedByRows(agg) =>
        AcrossTasksRole.PrefixState
      case Some(OrderDependence.WithinRounding) if exactFloats =>
        AcrossTasksRole.InOneTask("is rounded in row order (spark.fastwindow.exactFloats=true)")
      case Some(OrderDependence.WithinRounding) if sumOrAverage(agg) =>
        AcrossTasksRole.PrefixState
      case Some(OrderDependence.WithinRounding) =>
        AcrossTasksRole.InOneTask("merges floating moments, whose products of infinities may " +
          "give NaN where Spark's row loop gives an infinity")
      case _ => AcrossTasksRole.InOneTask("has partial states that merge exactly only in row order")
    }
  }

  /** Whether `agg`'s state holds no pointer into a row (fixed-length or decimal fields). */
  private def fixedLength(agg: DeclarativeAggregate): Boolean = agg.aggBufferAttributes.forall(a =>
    UnsafeRow.isFixedLength(a.dataType) || a.dataType.isInstanceOf[DecimalType])

  private val StateOfValues = "is not yet computed across tasks (its state holds strings or " +
    "nested values, which only first, last, nth_value and exact merges take across tasks)"

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
