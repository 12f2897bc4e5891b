package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.SubqueryExpression
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project}
import org.apache.spark.sql.execution.adaptive.LogicalQueryStage

import fastwindow.model.Spread

/** What a window's input reads, as far as spreading the window over tasks depends on it. */
object ScanInput {

  /**
   * Whether a plan is scans with filters and projections only: planned again projected to a few
   * columns, it reads only those (what a second read of anything else would cost, a shuffle, a
   * join or a subquery, is not known), and a task over it reads its rows in the same order
   * each time.
   */
  def readsOnlyScans(plan: LogicalPlan): Boolean = plan.find {
    case node @ (_: Project | _: Filter) => node.expressions.exists(SubqueryExpression.hasSubquery)
    case _: LogicalQueryStage => true // adaptive execution's stand-in for a part already planned
    case node => node.children.nonEmpty
  }.isEmpty

  /**
   * Whether a map task over `plan` run again (after a failure) gives the rows the ranges were
   * summarised from. Deterministic expressions do; over files, nondeterministic ones too
   * (rand(), monotonically_increasing_id(): the same seed, partition and row positions), but
   * over a shuffle's output, whose rows come in another order each time, they do not.
   */
  def sameOnRerun(plan: LogicalPlan): Boolean = deterministic(plan) || readsOnlyScans(plan)

  /** Whether a plan is deterministic, including the parts adaptive execution already planned. */
  private def deterministic(plan: LogicalPlan): Boolean = plan.find {
    case stage: LogicalQueryStage => !stage.logicalPlan.deterministic
    case node => !node.expressions.forall(_.deterministic)
  }.isEmpty

  val NotSameOnRerun: Spread.OneTask = Spread.OneTask("its input has a nondeterministic " +
    "expression above a shuffle: a map task run again after a failure would give rows other " +
    "than those the ranges were summarised from")
}
