package fastwindow.exec.hashwindow

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Expression, NamedExpression, SortOrder, WindowExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, DeclarativeAggregate}
import org.apache.spark.sql.catalyst.plans.physical.{AllTuples, ClusteredDistribution, Distribution, Partitioning}
import org.apache.spark.sql.execution.{SortExec, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.fastwindow.PartitionRowBuffer
import org.apache.spark.sql.fastwindow.shims.WindowEvaluatorShim

import fastwindow.config.FastWindowConf
import fastwindow.config.CodegenMode

/**
 * A window of whole-partition aggregates without ORDER BY (`sum(v) OVER (PARTITION BY k)`,
 * `count(*) OVER (PARTITION BY k)`, as in "share of the group's total") evaluated without sorting:
 * shown as `FastWindow` in plans, with "by hash, no sort".
 *
 * Spark sorts every row of the task by the keys only to find where each group starts. This
 * requires only the clustering, so no `Sort` is planned below it, and makes two passes over the
 * task's rows: the first adds each row to its key's aggregation buffer ([[AggregatesPerKey]]) and
 * keeps the row in Spark's spillable row buffer (the one `WindowExec` buffers partitions in); the
 * second emits every row, in input order, joined to its group's results (each task is a
 * [[HashWindowTask]]). Only aggregates whose results do not depend on the order of a group's rows
 * run here, so the results are Spark's. Its output has no order (it reports none).
 *
 * When the memory for the group state is refused, when an update overflows (ANSI), or when an
 * integral sum could overflow in some order ([[IntegralSumGuard]]), the task's rows go to Spark's
 * external sorter (which spills) and Spark's own window evaluation, as `WindowExec` would run
 * them: Spark's order then decides, as it does without fastwindow.
 *
 * Planned by [[fastwindow.planning.FastWindowStrategy]] when
 * [[fastwindow.planning.HashWindowSupport]] accepts the window.
 */
case class HashWindowAggregateExec(
    windowExpression: Seq[NamedExpression],
    partitionSpec: Seq[Expression],
    child: SparkPlan)
  extends WholePartitionAggregatesExec {

  override def requiredChildDistribution: Seq[Distribution] =
    (if (partitionSpec.isEmpty) AllTuples else ClusteredDistribution(partitionSpec)) :: Nil

  override def requiredChildOrdering: Seq[Seq[SortOrder]] = Seq(Nil)

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override def simpleString(maxFields: Int): String =
    s"$nodeName [${windowExpression.map(_.sql).mkString(", ")}] per " +
      s"[${partitionSpec.map(_.sql).mkString(", ")}] by hash, no sort"

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numWindowPartitions" -> SQLMetrics.createMetric(sparkContext, "number of window partitions"),
    "peakMemory" -> SQLMetrics.createSizeMetric(sparkContext, "peak memory of the group state"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size"),
    "numSortedTasks" -> SQLMetrics.createMetric(sparkContext,
      "tasks that sorted their rows (memory refused, or a sum that may overflow)")
  )

  private def aggregates: Seq[DeclarativeAggregate] = windowExpression.map(_.collectFirst {
    case ae: AggregateExpression => ae.aggregateFunction.asInstanceOf[DeclarativeAggregate]
  }.get)

  /** What each task needs of the plan and conf, read on the driver, once. */
  private[hashwindow] def taskPlan: HashWindowTask.Plan = {
    val aggs = aggregates
    // Each output: its aggregate's result, under what Spark's optimizer put around it, if anything.
    val evaluations = windowExpression.map(_.children.head.transformDown {
      case w: WindowExpression => w.windowFunction.asInstanceOf[AggregateExpression]
          .aggregateFunction.asInstanceOf[DeclarativeAggregate].evaluateExpression
    })
    HashWindowTask.Plan(
      aggs,
      aggs.flatMap(_.aggBufferAttributes),
      aggs.flatMap(_.initialValues),
      aggs.flatMap(_.updateExpressions),
      evaluations,
      child.output,
      windowExpression.map(_.toAttribute),
      partitionSpec,
      output,
      interpreted = FastWindowConf.CODEGEN_MODE.get(conf) == CodegenMode.NoCodegen,
      maxMemoryBytes = FastWindowConf.HASH_WINDOW_MAX_MEMORY_BYTES.get(conf),
      thresholds = PartitionRowBuffer.thresholds(conf)
    )
  }

  /** Per task, a [[HashWindowTask]]. */
  override protected def doExecute(): RDD[InternalRow] = {
    val plan = taskPlan
    val metrics = HashWindowTask.Metrics(longMetric("numOutputRows"),
      longMetric("numWindowPartitions"), longMetric("peakMemory"), longMetric("spillSize"),
      longMetric("numSortedTasks"))
    // Spark's way, for a task that cannot keep its groups: its sort, then its window.
    val sorting =
      SortExec(partitionSpec.map(SortOrder(_, Ascending)), global = false, child = child)
    val sparkWindow = WindowEvaluatorShim.sparkWindowFactory(
      sparkContext, windowExpression, partitionSpec, Nil, child.output, longMetric("spillSize"))

    child.execute().mapPartitionsWithIndex { (index, input) =>
      new HashWindowTask(plan, metrics, () => sorting.createSorter(), sparkWindow).run(index, input)
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): HashWindowAggregateExec =
    copy(child = newChild)
}
