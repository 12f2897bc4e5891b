package fastwindow.planning

import org.apache.spark.sql.catalyst
  .expressions.{Alias, Ascending, Attribute, AttributeMap, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project, Window, WindowGroupLimit}
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.internal.SQLConf

/**
 * Keeps Spark's sorts where Spark 4.3's `PushDownLocalSort` (`spark.sql.execution.pushDownLocalSort`)
 * merges them. That rule widens the sort below a window to the order of a sort above it, across
 * projections, filters, group limits and windows whose order the upper one satisfies, when the
 * upper order strictly covers the lower one, and drops the upper sort: the lower window then meets
 * its rows in the wider order, its ties broken by the upper keys. A window whose input a
 * [[fastwindow.exec.grouporder.GroupOrderExec]] orders has no sort to widen, so its ties would come in input
 * order, and results that depend on the order of ties (row_number over ties, first, floating sums)
 * could differ from Spark's. So where a window's order strictly covers the order of a window below
 * it, neither is grouped: both keep Spark's sorts, and Spark's rule does what it does without
 * fastwindow. A conservative reading of the rule: a window kept here may in fact be in another
 * stage, and is then only sorted by Spark as it would be with the group sort off.
 */
object SortPushDownGuard {

  /** On a logical window: a window above it covers its order, so its sort may be widened. */
  private val CoveredFromAbove = TreeNodeTag[Unit]("fastwindow.sortCoveredFromAbove")

  /**
   * Whether `window` must keep Spark's sort: its order strictly covers that of a window below it,
   * or a window above covered its own (planned first: Spark plans parents before children). The
   * windows below whose order it covers are marked for their own planning.
   */
  def keepsSparksSort(window: Window): Boolean = active && {
    val covered = windowsBelow(window.child, requiredOrder(window))
    covered.foreach(_.setTagValue(CoveredFromAbove, ()))
    covered.nonEmpty || window.getTagValue(CoveredFromAbove).isDefined
  }

  /** Whether this Spark has the rule and it is on (a registered key gives its own default). */
  private def active: Boolean =
    try SQLConf.get.getConfString("spark.sql.execution.pushDownLocalSort").toBoolean
    catch { case _: NoSuchElementException => false }

  /** The order Spark sorts a window's input in: its PARTITION BY keys, then its ORDER BY keys. */
  private def requiredOrder(w: Window): Seq[SortOrder] =
    w.partitionSpec.map(SortOrder(_, Ascending)) ++ w.orderSpec

  /**
   * The windows below `plan` that a sort in `order` reaches as the rule walks down and strictly
   * covers; the walk stops at any other operator and at a window whose order `order` does not
   * satisfy.
   */
  private def windowsBelow(plan: LogicalPlan, order: Seq[SortOrder]): Seq[Window] = plan match {
    case w: Window if SortOrder.orderingSatisfies(order, requiredOrder(w)) =>
      val strictly = !SortOrder.orderingSatisfies(requiredOrder(w), order)
      (if (strictly) Seq(w) else Nil) ++ windowsBelow(w.child, order)
    case p: Project => windowsBelow(p.child, throughRenames(p.projectList, order))
    case f: Filter => windowsBelow(f.child, order)
    case g: WindowGroupLimit => windowsBelow(g.child, order)
    case _ => Nil
  }

  /** `order` over a projection's output, rewritten over its input where columns are renamed. */
  private def throughRenames(
      projectList: Seq[NamedExpression], order: Seq[SortOrder]): Seq[SortOrder] = {
    val renamed = AttributeMap(projectList.collect {
      case a @ Alias(child: Attribute, _) => a.toAttribute -> child
    })
    order.map(_.transformUp { case a: Attribute => renamed.getOrElse(a, a) }.asInstanceOf[
        SortOrder])
  }
}
