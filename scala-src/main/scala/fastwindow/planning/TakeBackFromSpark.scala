package fastwindow.planning

import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan}
import org.apache.spark.sql.execution.window.WindowExec

import fastwindow.config.FastWindowConf
import fastwindow.exec.window.FastWindowExec
import fastwindow.model.FallbackReason

/**
 * Plans on fastwindow a window that fastwindow left to DataFusion Comet but Comet handed to
 * Spark's WindowExec after all (a type or argument its native window does not take).
 *
 * Runs after the columnar transitions, so after Comet's rules: a `WindowExec` still there whose
 * logical window was left to Comet ([[CometPlacement]]) becomes a FastWindowExec over the same
 * child, which already has the distribution and order both operators require. fastwindow's other
 * plans (the group sort, per-key hashing, ranges across tasks) need the planner and are not made
 * here; the window runs over Spark's sort, as a window does without them.
 */
object TakeBackFromSpark extends Rule[SparkPlan] {

  val Note: String = "left to Comet, which handed it to Spark's WindowExec: planned on " +
    "fastwindow after Comet's rules"

  override def apply(plan: SparkPlan): SparkPlan =
    if (!plan.exists(leftToComet) || !FastWindowConf.ENABLED.get(conf)) plan
    else plan.transformUp {
      case w: WindowExec if leftToComet(w) =>
        val taken = FastWindowExec(w.windowExpression, w.partitionSpec, w.orderSpec, w.child)
        if (taken.support.isLeft) w
        else {
          w.logicalLink.foreach { window =>
            window.unsetTagValue(FastWindowStrategy.FallbackReasons)
            window.setTagValue(CometPlacement.TakenFromComet, Note)
          }
          taken
        }
    }

  private def leftToComet(plan: SparkPlan): Boolean = plan match {
    case w: WindowExec => w.logicalLink.flatMap(_.getTagValue(FastWindowStrategy.FallbackReasons))
        .exists(_.exists(_.id == FallbackReason.LeftToComet))
    case _ => false
  }

  /** This rule after the columnar transitions, where Comet's rules have run. */
  object AsColumnarRule extends ColumnarRule {
    override def postColumnarTransitions: Rule[SparkPlan] = TakeBackFromSpark
  }
}
