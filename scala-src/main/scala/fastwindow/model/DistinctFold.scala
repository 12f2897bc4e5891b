package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.catalyst.trees.TreeNodeTag

/**
 * `sum(DISTINCT x) OVER w` and `avg(DISTINCT x) OVER w` become, in the DISTINCT rewrite, a fold
 * of Spark's aggregate over the frame's set (`aggregate(collect_set(x) OVER w, ...)`), which
 * Spark runs by itself. The fold is tagged with the aggregate it applies, so planning can run it
 * on the frame's distinct values without reading back the lambdas (which the optimizer may
 * simplify).
 */
object DistinctFold {

  /** The aggregate a fold applies, its input being the set's element. */
  val Aggregate: TreeNodeTag[DeclarativeAggregate] = TreeNodeTag("fastwindow.distinctFold")
}
