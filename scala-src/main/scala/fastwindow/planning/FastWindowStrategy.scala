package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.WindowFunctionType
import org.apache.spark.sql.catalyst.planning.PhysicalWindow
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}

import fastwindow.FastWindowConf
import fastwindow.exec.FastWindowExec

/**
 * Plans a logical `Window` of SQL window functions on [[FastWindowExec]] when
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
            FastWindowExec(windowExprs, partitionSpec, orderSpec, planLater(child)) :: Nil
          case Left(reason) =>
            recordFallback(plan, reason)
            Nil
        }
      }
    case _ => Nil
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
