package fastwindow.planning

import org.apache.spark.sql.catalyst
  .expressions.{Alias, Expression, Literal, NamedExpression, SortOrder, SpecifiedWindowFrame, UnboundedFollowing, UnboundedPreceding, UnsafeRow, WindowExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, DeclarativeAggregate}

import fastwindow.functions.AggregateFamily

/**
 * Whether a window can run on [[fastwindow.exec.hashwindow.HashWindowAggregateExec]], per key without
 * sorting: it has no ORDER BY, PARTITION BY keys that are all [[HashableKeys.hashable]], and only
 * deterministic, non-DISTINCT, unfiltered declarative aggregates over the whole partition (or
 * expressions of one's result alone) whose result does not depend on the order of the rows (their
 * rule's [[fastwindow.functions.OrderDependence]]: count, min, max, integral and decimal sums, ...) and
 * whose buffer Spark updates in place (fixed-width fields). Other windows
 * run on `FastWindowExec` as before: not a fallback to Spark, a choice between two fastwindow
 * operators, and the report says why the sort stayed ([[whyNot]]).
 */
object HashWindowSupport {

  def accepts(windowExpression: Seq[NamedExpression], partitionSpec: Seq[Expression],
      orderSpec: Seq[SortOrder]): Boolean =
    whyNot(windowExpression, partitionSpec, orderSpec).isEmpty

  /**
   * Why the window cannot run per key by hash, one phrase per obstacle (empty when it can): what
   * the report tells a user whose whole-partition window is still sorted.
   */
  def whyNot(windowExpression: Seq[NamedExpression], partitionSpec: Seq[Expression],
      orderSpec: Seq[SortOrder]): Seq[String] =
    if (orderSpec.nonEmpty) Seq("it has ORDER BY")
    else if (partitionSpec.isEmpty) Seq("it has no PARTITION BY")
    else {
      partitionSpec.filterNot(HashableKeys.hashable).map(k =>
        s"the key ${k.sql} (${k.dataType.simpleString}) is not grouped by its bytes") ++
        windowExpression.flatMap(whyNotPerKey(_))
    }

  /**
   * Why a window without PARTITION BY and ORDER BY (`OVER ()`) cannot have its aggregates
   * computed where the rows are, by partial states merged across tasks
   * ([[KeyAggregatesPlacement]]), one phrase per obstacle: the per-key conditions, except that
   * floating sums and averages may be merged when `exactFloats` is off (their results then differ
   * from Spark's in the last bits, as across tasks with ORDER BY: [[AcrossTasksSupport]]).
   */
  def whyNotOverWholeInput(
      windowExpression: Seq[NamedExpression], exactFloats: Boolean): Seq[String] =
    windowExpression.flatMap(whyNotPerKey(_, roundingMerges = !exactFloats))

  /**
   * Why this output is not one aggregate over the whole partition whose result is order-free
   * (or, with `roundingMerges`, a floating sum or average), possibly under expressions of its
   * result alone (Spark's `DecimalAggregates` rewrites `avg(decimal)` into a division of an
   * unscaled average).
   */
  private def whyNotPerKey(e: NamedExpression, roundingMerges: Boolean = false): Option[String] =
    e match {
      case Alias(child, _) =>
        val windows = child.collect { case w: WindowExpression => w }
        val aroundIt = child.transformDown { case w: WindowExpression => Literal(null, w.dataType) }
        if (windows.size != 1 || aroundIt.references.nonEmpty || !child.deterministic) {
          Some(s"${child.sql} is not one aggregate alone")
        } else {
          whyNotAggregate(windows.head, roundingMerges)
            .map(why => s"${windows.head.windowFunction.sql}: $why")
        }
      case _ => Some(s"${e.sql} is not one aggregate alone")
    }

  private def whyNotAggregate(w: WindowExpression, roundingMerges: Boolean): Option[String] =
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
              case Some(order)
                  if !order.perKey &&
                    !(roundingMerges && order.roundsByOrder && AcrossTasksSupport.sumOrAverage(
                      d)) =>
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
