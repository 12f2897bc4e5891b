package fastwindow.planning

import org.apache.spark.sql.catalyst
  .expressions.{Alias, Expression, Literal, NamedExpression, SortOrder, SpecifiedWindowFrame, UnboundedFollowing, UnboundedPreceding, UnsafeRow, WindowExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, DeclarativeAggregate}

import fastwindow.functions.{AggregateFamily, AggregatesAcrossTasks}

/**
 * Whether a window can run on [[fastwindow.exec.hashwindow.HashWindowAggregateExec]], per key without
 * sorting: it has no ORDER BY, PARTITION BY keys that are all [[HashableKeys.hashable]], and only
 * deterministic, non-DISTINCT, unfiltered declarative aggregates over the whole partition (or
 * expressions of one's result alone) whose result does not depend on the order of the rows (their
 * rule's [[fastwindow.functions.OrderDependence]]: count, min, max, integral and decimal sums, ...)
 * or, unless `spark.fastwindow.exactFloats`, only by float rounding (floating sums, averages and
 * moments: a key's rows are added in the order they arrive, an order Spark's own shuffle may give
 * too), and whose buffer Spark updates in place (fixed-width fields). Other windows run on
 * `FastWindowExec` as before: not a fallback to Spark, a choice between two fastwindow operators,
 * and the report says why the sort stayed ([[whyNot]]).
 */
object HashWindowSupport {

  def accepts(windowExpression: Seq[NamedExpression], partitionSpec: Seq[Expression],
      orderSpec: Seq[SortOrder], exactFloats: Boolean): Boolean =
    whyNot(windowExpression, partitionSpec, orderSpec, exactFloats).isEmpty

  /**
   * Why the window cannot run per key by hash, one phrase per obstacle (empty when it can): what
   * the report tells a user whose whole-partition window is still sorted.
   */
  def whyNot(windowExpression: Seq[NamedExpression], partitionSpec: Seq[Expression],
      orderSpec: Seq[SortOrder], exactFloats: Boolean): Seq[String] =
    if (orderSpec.nonEmpty) Seq("it has ORDER BY")
    else if (partitionSpec.isEmpty) Seq("it has no PARTITION BY")
    else {
      partitionSpec.filterNot(HashableKeys.hashable).map(k =>
        s"the key ${k.sql} (${k.dataType.simpleString}) is not grouped by its bytes") ++
        windowExpression.flatMap(whyNotPerKey(_, Rounding.inArrivalOrder(exactFloats)))
    }

  /**
   * Why the window's aggregates cannot be computed where the rows are, by partial states of each
   * task merged ([[KeyAggregatesPlacement]]: per key, or over the whole input for `OVER ()`), one
   * phrase per obstacle: the per-key conditions, except that of floating aggregates only sums
   * and averages merge, and only when `exactFloats` is off (their results then differ from
   * Spark's in the last bits, as across tasks with ORDER BY: [[AcrossTasksSupport]]).
   */
  def whyNotMerged(windowExpression: Seq[NamedExpression], exactFloats: Boolean): Seq[String] =
    windowExpression.flatMap(whyNotPerKey(_, Rounding.merged(exactFloats)))

  /**
   * Which floating aggregates (rounded by order: `OrderDependence.Rounding`) may be
   * added in another order than Spark's sort gives, or the reason they may not.
   */
  private type Rounding = DeclarativeAggregate => Option[String]

  private object Rounding {
    private val exact = "its floating result is rounded in the order of the group's rows, which " +
      "Spark's sort decides (spark.fastwindow.exactFloats=true)"

    /** Each key's rows added one by one as they arrive: any floating aggregate, within rounding. */
    def inArrivalOrder(exactFloats: Boolean): Rounding =
      _ => if (exactFloats) Some(exact) else None

    /** Partial states merged: sums and averages, within rounding. */
    def merged(exactFloats: Boolean): Rounding = d =>
      if (exactFloats) Some(exact)
      else if (AggregatesAcrossTasks.sumOrAverage(d)) None
      else Some("its partial floating moments would be merged, whose products of infinities " +
        "may give NaN where Spark's row loop gives an infinity")
  }

  /**
   * Why this output is not one aggregate over the whole partition whose result is order-free, or
   * a floating aggregate that `rounding` lets be reordered, possibly under expressions of its
   * result alone (Spark's `DecimalAggregates` rewrites `avg(decimal)` into a division of an
   * unscaled average).
   */
  private def whyNotPerKey(e: NamedExpression, rounding: Rounding): Option[String] =
    e match {
      case Alias(child, _) =>
        val windows = child.collect { case w: WindowExpression => w }
        val aroundIt = child.transformDown { case w: WindowExpression => Literal(null, w.dataType) }
        if (windows.size != 1 || aroundIt.references.nonEmpty || !child.deterministic) {
          Some(s"${child.sql} is not one aggregate alone")
        } else {
          whyNotAggregate(windows.head, rounding)
            .map(why => s"${windows.head.windowFunction.sql}: $why")
        }
      case _ => Some(s"${e.sql} is not one aggregate alone")
    }

  private def whyNotAggregate(w: WindowExpression, rounding: Rounding): Option[String] =
    w match {
      case WindowExpression(ae: AggregateExpression, spec) =>
        val whole = spec.orderSpec.isEmpty && (spec.frameSpecification match {
          case SpecifiedWindowFrame(_, UnboundedPreceding, UnboundedFollowing) => true
          case _ => false
        })
        if (!whole) Some("its frame is not the whole partition")
        else if (ae.isDistinct) Some("DISTINCT")
        else if (ae.filter.nonEmpty) Some("FILTER")
        else ae.aggregateFunction match {
          case d: DeclarativeAggregate => AggregateFamily.orderDependence(d) match {
              case None => Some("not an aggregate fastwindow runs per key")
              case Some(order) if order.roundsByOrder && rounding(d).nonEmpty => rounding(d)
              case Some(order) if !order.perKey && !order.roundsByOrder =>
                Some("its result depends on the order of the group's rows, which Spark's sort " +
                  s"decides (${order.description})")
              case Some(_) if !d.aggBufferAttributes.forall(a => UnsafeRow.isMutable(a.dataType)) =>
                Some("its buffer has fields of variable width")
              case Some(_) => None
            }
          case _ => Some("an imperative aggregate")
        }
      case _ => Some("not an aggregate")
    }
}
