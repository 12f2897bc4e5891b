package fastwindow.planning

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.trees.TreePattern
import org.apache.spark.sql.internal.SQLConf

import fastwindow.config.FastWindowConf

/**
 * Checks every fastwindow key the session sets, once per query that has a window, before the
 * planner reads any: a bad value or an unknown `spark.fastwindow.*` key (a typo) fails the query
 * with an error that names it. Keys are refused when they are set once fastwindow is installed;
 * this catches a value set before. Queries without windows read no key, so they never fail on
 * one. It runs with the optimizer's rules that run once (Spark's pre-CBO batch), or, on a session
 * installed after it was built, with its extra optimizations.
 */
object SettingsCheck extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    if (plan.containsPattern(TreePattern.WINDOW)) FastWindowConf.validate(SQLConf.get.getAllConfs)
    plan
  }
}
