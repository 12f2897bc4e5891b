package fastwindow.functions

import org.apache.spark.sql.catalyst
  .expressions.{Abs, Add, AttributeReference, BindReferences, Cast, Coalesce, EvalMode, Expression, GreaterThanOrEqual, Literal, Log}
import org.apache.spark.sql.catalyst.expressions
  .aggregate.{Average, CentralMomentAgg, DeclarativeAggregate, Product, Sum}
import org.apache.spark.sql.fastwindow.shims.ArithmeticShim
import org.apache.spark.sql.types.{DataType, DecimalType, DoubleType, LongType}

import fastwindow.model.{FilteredAggregate, IntervalBits, IntervalSumPartial, IntervalSums, LegacyPartial}
import fastwindow.ops.{AggregateRequest, BoundAggregate}

/**
 * What the two stacks of a sliding frame combine for an aggregate, and when a frame must be
 * recomputed row by row instead (`fastwindow.frames.TwoStacks`).
 *
 * Combining partial aggregates in another order than Spark's row-by-row loop is exact for count,
 * min, max, bit operations and wrapping integral sums, and within float rounding for float sums.
 * Where the order decides overflow (integral sums under ANSI/TRY, decimal sums and averages, sums
 * and averages of intervals, which check overflow in every mode), the stacks combine a
 * non-failing copy of the aggregate (`fastwindow.model.LegacyPartial`; for intervals
 * `fastwindow.model.IntervalSumPartial`), whose result is still the aggregate's own evaluation
 * (a decimal average that does not fit its type fails under ANSI), next to a sum of |x| as double; a
 * frame whose |x| sum comes near the type's limit is recomputed row by row with Spark's own
 * expressions, so errors and nulls from overflow appear exactly where Spark produces them.
 * Central moments (variance, standard deviation, skewness, kurtosis) and co-moments (covariance,
 * correlation, the regr_* family) merge partial moments where Spark updates row by row: within
 * float rounding, and frames with a non-finite value or a large sum of |x| (and |y|) are
 * recomputed row by row.
 * Products of doubles round within float rounding in any order while no partial product leaves
 * the normal range; where it could (a large sum of |ln |x||), intermediate infinities and zeros
 * (and 0 * inf = NaN) depend on the order, so such frames are recomputed row by row.
 */
object SlidingGuard {

  /**
   * What the stacks combine instead of an aggregate whose partials may not be combined in any
   * order everywhere (a non-failing copy), the input whose sum of |x| is watched, and the sum of
   * |x| from which a frame is recomputed row by row. Each rule of [[AggregateFamily.rules]] names
   * its guard (or none).
   */
  final case class Guard(partial: DeclarativeAggregate, watched: Expression, safeMagnitude: Double)

  /** Guards `agg` when `applies`; what each rule's `guard` is built from. */
  type GuardOf = DeclarativeAggregate => Option[Guard]

  /** No guard: combining partials in any grouping is exact, or within float rounding. */
  val none: GuardOf = _ => None

  /**
   * Sums and averages: intervals check overflow in every mode (a wrapping sum of their values
   * instead); decimal sums and averages, and integral sums under ANSI or TRY, fail or give null
   * where a partial sum overflows (their LEGACY copy instead, evaluated as the aggregate).
   */
  val sums: GuardOf = {
    case i if IntervalSums.summed(i) =>
      Some(Guard(IntervalSumPartial(i), IntervalBits(i.children.head),
          IntervalSums.safeMagnitude(i)))
    case s: Sum if s.dataType.isInstanceOf[DecimalType] =>
      Some(Guard(LegacyPartial(s, ArithmeticShim.withEvalMode(s, EvalMode.LEGACY)), s.child,
          safeMagnitude(s.dataType)))
    case s: Sum if s.dataType == LongType && ArithmeticShim.evalMode(s) != EvalMode.LEGACY =>
      // The result is the sum itself, so the copy's own result is the aggregate's.
      Some(Guard(ArithmeticShim.withEvalMode(s, EvalMode.LEGACY), s.child,
          safeMagnitude(s.dataType)))
    case a: Average if a.child.dataType.isInstanceOf[DecimalType] =>
      Some(Guard(LegacyPartial(a, a.copy(evalMode = EvalMode.LEGACY)), a.child,
          safeMagnitude(a.sumDataType)))
    case _ => None
  }

  /** Variance and standard deviations: second moments of x. */
  val moments: GuardOf = {
    case c: CentralMomentAgg => Some(Guard(c, c.child, MomentSafeMagnitude))
    case _ => None
  }

  /** Skewness and kurtosis: third and fourth moments, the tighter bound. */
  val higherMoments: GuardOf = {
    case c: CentralMomentAgg => Some(Guard(c, c.child, HigherMomentSafeMagnitude))
    case _ => None
  }

  /** Co-moments of (x, y): covariance and regr_sxy. */
  val coMoments: GuardOf = agg => Some(Guard(agg, sumOfAbs(agg), MomentSafeMagnitude))

  /** Correlation, slope, intercept and r2 divide by products of moments: the tighter bound. */
  val coMomentRatios: GuardOf = agg => Some(Guard(agg, sumOfAbs(agg), HigherMomentSafeMagnitude))

  /**
   * ln |x| is null for 0 (zeros, infinities and NaN multiply alike in any order once every
   * partial product of the finite values is normal); infinite or NaN for inf and NaN inputs,
   * whose frames are recomputed.
   */
  val products: GuardOf = {
    case p: Product => Some(Guard(p, Log(Abs(p.child)), ProductSafeLogMagnitude))
    case _ => None
  }

  private def sumOfAbs(agg: DeclarativeAggregate): Expression =
    agg.children.map(x => Abs(Cast(x, DoubleType)): Expression).reduce(Add(_, _))

  /**
   * The aggregates the stacks combine for `agg`, side by side in one buffer: `agg` itself, or its
   * guard's non-failing copy followed by the sum of |x| the guard watches (a LEGACY double sum),
   * with that guard. (A range of a window spread over tasks is seeded with their state.)
   */
  def combined(agg: DeclarativeAggregate): (Seq[DeclarativeAggregate], Option[Guard]) =
    guarded(agg) match {
      case None => (Seq(agg), None)
      case Some(g) =>
        (Seq(g.partial, ArithmeticShim.sum(Abs(Cast(g.watched, DoubleType)), EvalMode.LEGACY)),
          Some(g))
    }

  /** The request the stacks combine for `agg` ([[combined]]), and whether it carries a guard. */
  def partial(agg: DeclarativeAggregate, columns: Seq[AttributeReference], ordinal: Int)
      : AggregateRequest = {
    val (aggs, guard) = combined(agg)
    val buffer = BoundAggregate.of(aggs, columns)
    guard match {
      case None => AggregateRequest(buffer, agg.dataType, ordinal)
      case Some(g) =>
        val nearLimit = GreaterThanOrEqual(
          Coalesce(Seq(aggs.last.evaluateExpression, Literal(0.0))), Literal(g.safeMagnitude))
        AggregateRequest(buffer, g.partial.dataType, ordinal,
          Some(BindReferences.bindReference(nearLimit, buffer.bufferAttributes)))
    }
  }

  /**
   * The guard of `agg`, if any. FILTER only decides which rows update the buffer: the guard is
   * the aggregate's own, and the unfiltered sum of |x| bounds the filtered one.
   */
  private def guarded(agg: DeclarativeAggregate): Option[Guard] = agg match {
    case FilteredAggregate(inner, filter) =>
      guardOf(inner).map(g => g.copy(partial = FilteredAggregate(g.partial, filter)))
    case other => guardOf(other)
  }

  /** Whether some frames of `agg` are recomputed row by row (see above). */
  def isGuarded(agg: DeclarativeAggregate): Boolean = guardOf(agg).isDefined

  private def guardOf(agg: DeclarativeAggregate): Option[Guard] = agg match {
    case FilteredAggregate(inner, _) => guardOf(inner)
    case other => AggregateFamily.ruleOf(other).flatMap(_.guard(other))
  }

  /**
   * Half of the largest magnitude a sum buffer of `sumType` holds: below it (as a sum of |x|),
   * no partial sum of the frame can overflow in any order. Halved to absorb the double rounding
   * of the |x| sum.
   */
  private def safeMagnitude(sumType: DataType): Double = sumType match {
    case d: DecimalType => math.pow(10, d.precision - d.scale) / 2
    case _ => math.pow(2, 62)
  }

  /**
   * Central moments (Welford's updates row by row, merges of partials) agree within float
   * rounding while no intermediate overflows; below this sum of |x| none does (powers and
   * products of counts stay far below Double.MaxValue). A frame with a larger, infinite or NaN
   * value is recomputed row by row, so NaN and infinity appear exactly where Spark's row-by-row
   * updates produce them.
   */
  private val MomentSafeMagnitude = 1e100

  /** The same bound for third and fourth moments (skewness, kurtosis): x^4 stays below 1e240. */
  private val HigherMomentSafeMagnitude = 1e60

  /**
   * A sum of |ln |x|| below which every partial product of a frame's finite nonzero values, in
   * any order, lies within e^600 (about 2^866) of 1: inside the normal doubles (2^-1022 to
   * 2^1023), so no order overflows or underflows where another does not.
   */
  private val ProductSafeLogMagnitude = 600.0
}
