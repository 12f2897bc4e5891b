package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, CollectSet, Complete}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project, Window}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.trees.TreePattern

import fastwindow.config.FastWindowConf

/**
 * Moves `size(s)`, where `s` is a `collect_set(...) OVER w` of the window below, into that
 * window, as `size(collect_set(...) OVER w)`: the window then computes the count, which
 * fastwindow does without building any set (`DistinctAggregateFamily`). The set itself stays only if
 * something else reads it. Spark's window runs either form (it evaluates expressions over window
 * functions, as for DecimalAggregates' rewrites), so the plan stays right when fastwindow leaves
 * the window to Spark; with `spark.fastwindow.enabled=false` the rule does nothing. Plans without
 * a window are left alone before any key is read (a query without windows never reads one).
 */
object SetSizeIntoWindow extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan =
    if (!plan.containsPattern(TreePattern.WINDOW) || !FastWindowConf.ENABLED.get()) plan
    else plan.transformDown { case p @ Project(_, _: Window) => intoWindows(p) }

  /**
   * The windows below `p` (the sets may be in any: windows pass their input on) and the
   * projections between them (column pruning puts them there, and the analyzer computes window
   * inputs in them), top first.
   */
  private def chainBelow(p: Project): Seq[LogicalPlan] =
    Iterator.iterate(p.child)(_.children.head).takeWhile {
      case _: Window | Project(_, _: Window) => true
      case _ => false
    }.toSeq

  private def intoWindows(p: Project): LogicalPlan = {
    val chain = chainBelow(p)

    /** Each set of the windows, with the position of the window that computes it. */
    val sets = chain.zipWithIndex.flatMap {
      case (w: Window, i) => w.windowExpressions.collect {
          case a @ Alias(WindowExpression(AggregateExpression(_: CollectSet, Complete, false, _, _),
                  _), _) =>
            a.exprId -> (a, i)
        }
      case _ => Nil
    }.toMap
    val sizes = scala.collection.mutable.LinkedHashMap.empty[Expression, (Alias, Int)]
    val list = p.projectList.map(_.transformUp {
      case size: Size
          if size.child.isInstanceOf[Attribute] &&
            sets.contains(size.child.asInstanceOf[Attribute].exprId) =>
        val (set, window) = sets(size.child.asInstanceOf[Attribute].exprId)
        sizes.getOrElseUpdate(size.canonicalized,
          (Alias(size.withNewChildren(Seq(set.child)), s"size(${set.name})")(), window))
          ._1.toAttribute
    }.asInstanceOf[NamedExpression])
    if (sizes.isEmpty) p
    else {
      // Top down: each window computes the sizes of its sets and keeps what is still read above
      // it; each projection passes on what is read above it and the sizes from below.
      var read = AttributeSet(list.flatMap(_.references))
      val rewritten = chain.zipWithIndex.map {
        case (w: Window, i) =>
          val kept = w.windowExpressions.filter(e => read.contains(e.toAttribute)) ++
            sizes.values.collect { case (size, `i`) => size }
          read = read ++ AttributeSet(kept.flatMap(_.references)) ++
            AttributeSet((w.partitionSpec ++ w.orderSpec).flatMap(_.references))
          w.copy(windowExpressions = kept)
        case (between: Project, i) =>
          val kept = between.projectList.filter(e => read.contains(e.toAttribute))
          read = read ++ AttributeSet(kept.flatMap(_.references))
          between.copy(projectList =
            kept ++ sizes.values.collect { case (size, below) if below > i => size.toAttribute })
      }.filter {
        case w: Window => w.windowExpressions.nonEmpty
        case _ => true
      }
      Project(list,
        rewritten.foldRight(chain.last.children.head)((node, child) =>
          node.withNewChildren(Seq(child))))
    }
  }
}
