package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, NamedExpression, SortOrder, WindowFunctionType}
import org.apache.spark.sql.catalyst.planning.PhysicalWindow
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.{ProjectExec, SparkPlan, SparkStrategy}

import fastwindow.FastWindowConf
import fastwindow.exec.FastWindowExec

/**
 * Plans a logical `Window` of SQL window functions on [[FastWindowExec]] (two of them, on
 * request, when it mixes streamed and buffered functions: see `operators`) when
 * [[WindowSupport.check]] accepts every one of its expressions; otherwise returns Nil, so Spark's
 * own `Window` strategy plans `WindowExec`, and records why.
 *
 * The reason is stored as a tag on the logical node (the physical `WindowExec` links back to it,
 * which is how `fastwindow.explain(df)` and the extended explain find it) and logged at WARN once
 * per node: adaptive re-planning of the same node does not log again. Python UDF windows
 * (`WindowFunctionType.Python`) are never touched.
 */
object FastWindowStrategy extends SparkStrategy {

  /** Why fastwindow left a logical Window to Spark (absent when fastwindow planned it). */
  val FallbackReason: TreeNodeTag[String] = TreeNodeTag[String]("fastwindow.fallbackReason")

  val DisabledReason = "fastwindow is disabled for this session (spark.fastwindow.enabled=false)"

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case PhysicalWindow(WindowFunctionType.SQL, windowExprs, partitionSpec, orderSpec, child) =>
      if (!FastWindowConf.ENABLED.get()) {
        plan.setTagValue(FallbackReason, DisabledReason)
        Nil
      } else {
        WindowSupport.check(windowExprs, orderSpec) match {
          case Right(_) =>
            plan.unsetTagValue(FallbackReason)
            operators(windowExprs, partitionSpec, orderSpec, planLater(child), plan.output) :: Nil
          case Left(reason) =>
            recordFallback(plan, reason)
            Nil
        }
      }
    case _ => Nil
  }

  /**
   * The operators for a supported window. With `spark.fastwindow.streaming.splitMixed`, a node
   * mixing functions that stream (see [[StreamBounds]]) with functions that need their whole
   * partition runs as two FastWindowExecs over the same partitioning and order: the streamed
   * functions' inputs are then held for O(frame) rows, not for the whole partition as the
   * buffering operator must hold its own. The group whose expressions come first sits below, so
   * the output keeps the node's order when each group's expressions are contiguous; otherwise a
   * projection restores it.
   */
  private def operators(
      windowExprs: Seq[NamedExpression],
      partitionSpec: Seq[Expression],
      orderSpec: Seq[SortOrder],
      child: SparkPlan,
      output: Seq[Attribute]): SparkPlan = {
    def streams(e: NamedExpression): Boolean =
      WindowSupport.check(Seq(e), orderSpec).exists(_.streamBounds.isDefined)
    val split = FastWindowConf.STREAMING_ENABLED.get() && FastWindowConf.STREAMING_SPLIT_MIXED.get()
    val (streamed, buffered) =
      if (split) windowExprs.partition(streams) else (Nil, windowExprs)
    if (streamed.isEmpty || buffered.isEmpty) {
      FastWindowExec(windowExprs, partitionSpec, orderSpec, child)
    } else {
      val (lower, upper) =
        if (streams(windowExprs.head)) (streamed, buffered) else (buffered, streamed)
      val top = FastWindowExec(upper, partitionSpec, orderSpec,
        FastWindowExec(lower, partitionSpec, orderSpec, child))
      if (top.output == output) top else ProjectExec(output, top)
    }
  }

  private def recordFallback(window: LogicalPlan, reason: String): Unit = {
    val alreadyLogged = window.getTagValue(FallbackReason).contains(reason)
    window.setTagValue(FallbackReason, reason)
    if (!alreadyLogged && FastWindowConf.LOG_FALLBACK.get()) {
      logWarning(s"fastwindow: a window operator stays on Spark's WindowExec: $reason. " +
        s"Window: ${window.simpleStringWithNodeId()}")
    }
  }
}
