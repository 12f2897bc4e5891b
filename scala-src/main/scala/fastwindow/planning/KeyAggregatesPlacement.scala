package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.{Expression, NamedExpression}
import org.apache.spark.sql.catalyst.plans
  .physical.{Distribution, HashPartitioning, SinglePartition, UnspecifiedDistribution}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql
  .execution.{ColumnarRule, ColumnarToRowExec, FileSourceScanExec, FilterExec, InputAdapter, LocalTableScanExec, ProjectExec, RangeExec, SparkPlan, WholeStageCodegenExec}
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec
import org.apache.spark.sql.execution.exchange.{ENSURE_REQUIREMENTS, Exchange, ShuffleExchangeExec}

import fastwindow.config.FastWindowConf
import fastwindow.exec.hashwindow.{HashWindowAggregateExec, KeyAggregatesWindowExec}
import fastwindow.exec.window.FastWindowExec

/**
 * Runs whole-partition aggregates where the rows are, without shuffling them.
 *
 * A hash window over the shuffle of its rows by key
 * (`HashWindowAggregateExec(ShuffleExchangeExec(hash of the keys, input))`) is replaced with a
 * [[fastwindow.exec.hashwindow.KeyAggregatesWindowExec]] over the input itself, which joins each
 * key's aggregates to the rows where they are; and likewise a window of aggregates over the whole
 * input (`x / sum(x) OVER ()`, a `FastWindowExec` with neither PARTITION BY nor ORDER BY, over the
 * shuffle Spark places to move every row into one task), whose aggregates then run in every task
 * where the rows are ([[HashWindowSupport.whyNotMerged]] says which, for both; the planner marks
 * such a window when it would spread it over tasks, so an input below
 * `spark.fastwindow.acrossTasks.minInputSize` keeps its one task, without a job of its own), when:
 *
 *  - the input can be read twice cheaply and gives the same rows both times: a file, range,
 *    local or cached table scan under filters and projections, every expression deterministic.
 *    A join, an aggregate or an exchange below would be computed twice, at more cost than the
 *    shuffle it saves;
 *  - no operator above relies on the rows being clustered by the keys (a second window by the
 *    same keys, an aggregate or a join on them, with no exchange between): the new operator's
 *    output partitioning is unknown, so such a parent would need a shuffle of its own.
 *
 * A physical rule, run after Spark's `EnsureRequirements` has placed the exchanges (as an
 * adaptive query-stage preparation rule, and before the columnar transitions without AQE): only
 * then are the shuffle below the window and the requirements above it known.
 */
object KeyAggregatesPlacement extends Rule[SparkPlan] {

  // Settings read only for plans with such a window: a query without one reads no key (a bad
  // value that got past the check must fail window queries only).
  override def apply(plan: SparkPlan): SparkPlan =
    if (!plan.exists(p => p.isInstanceOf[HashWindowAggregateExec] || overWholeInput(p)) ||
      !FastWindowConf.ENABLED.get(conf) || !FastWindowConf.KEY_AGGREGATES_ENABLED.get(conf)) {
      plan
    } else place(plan, UnspecifiedDistribution)

  private def overWholeInput(plan: SparkPlan): Boolean = plan match {
    case w: FastWindowExec => w.spread == FastWindowStrategy.AggregatesWhereRowsAre
    case _ => false
  }

  /**
   * `plan` with its qualifying windows replaced; `above` is what the nearest operator above
   * requires of the rows (unspecified past an exchange, which repartitions them anyway).
   */
  private def place(plan: SparkPlan, above: Distribution): SparkPlan = plan match {
    case window @ HashWindowAggregateExec(exprs, keys, shuffle: ShuffleExchangeExec)
        if placedBySpark(shuffle) && readTwiceCheaply(shuffle.child) &&
          !reliesOn(above, shuffle) && mergeable(exprs) =>
      replaced(window, exprs, keys, shuffle.child)
    case window @ FastWindowExec(
          exprs, Nil, Nil, shuffle: ShuffleExchangeExec, FastWindowStrategy.AggregatesWhereRowsAre)
        if oneTaskBySpark(shuffle) && readTwiceCheaply(shuffle.child) &&
          !reliesOn(above, shuffle) && mergeable(exprs) =>
      replaced(window, exprs, Nil, shuffle.child)
    case _ =>
      val required = plan.requiredChildDistribution
      plan.withNewChildren(plan.children.zipWithIndex.map { case (child, i) =>
        val fromHere = if (plan.isInstanceOf[Exchange]) UnspecifiedDistribution
        else required.lift(i).filterNot(_ == UnspecifiedDistribution).getOrElse(above)
        place(child, fromHere)
      })
  }

  /** The window over its input where it is, in place of `window` over the shuffle. */
  private def replaced(window: SparkPlan, exprs: Seq[NamedExpression], keys: Seq[Expression],
      input: SparkPlan): SparkPlan = {
    val placed = KeyAggregatesWindowExec(exprs, keys, place(input, UnspecifiedDistribution))
    // The logical Window it runs: AQE maps a query stage above it back to the logical plan
    // by the first link it finds below, which must be this window's, not its input's (else
    // the window would be planned again over the stage's output).
    placed.copyTagsFrom(window)
    placed
  }

  /** Whether the aggregates' partial states of several tasks may be merged. */
  private def mergeable(exprs: Seq[NamedExpression]): Boolean =
    HashWindowSupport.whyNotMerged(exprs, FastWindowConf.EXACT_FLOATS.get(conf)).isEmpty

  /** Whether an operator above requiring `above` relies on the clustering `shuffle` makes. */
  private def reliesOn(above: Distribution, shuffle: ShuffleExchangeExec): Boolean =
    above != UnspecifiedDistribution && shuffle.outputPartitioning.satisfies(above)

  /** A shuffle by hash that Spark placed for the window, not one the query asked for. */
  private def placedBySpark(shuffle: ShuffleExchangeExec): Boolean =
    shuffle.shuffleOrigin == ENSURE_REQUIREMENTS &&
      shuffle.outputPartitioning.isInstanceOf[HashPartitioning]

  /** Every row moved into one task because the window has neither PARTITION BY nor ORDER BY. */
  private def oneTaskBySpark(shuffle: ShuffleExchangeExec): Boolean =
    shuffle.shuffleOrigin == ENSURE_REQUIREMENTS && shuffle.outputPartitioning == SinglePartition

  /** A scan under filters and projections, every expression deterministic. */
  private def readTwiceCheaply(plan: SparkPlan): Boolean =
    plan.expressions.forall(_.deterministic) && (plan match {
      case _: FileSourceScanExec | _: RangeExec | _: LocalTableScanExec |
          _: InMemoryTableScanExec => true
      case _: ProjectExec | _: FilterExec | _: ColumnarToRowExec | _: InputAdapter |
          _: WholeStageCodegenExec => plan.children.forall(readTwiceCheaply)
      case _ => false
    })

  /** This rule where Spark applies columnar rules (without AQE: after `EnsureRequirements`). */
  object AsColumnarRule extends ColumnarRule {
    override def preColumnarTransitions: Rule[SparkPlan] = KeyAggregatesPlacement
  }
}
