package fastwindow.exec.hashwindow

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Expression, JoinedRow, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.plans
  .physical.{HashPartitioning, Partitioning, SinglePartition, UnknownPartitioning}
import org.apache.spark.sql.execution.{SortExec, SparkPlan}
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.fastwindow.shims.WindowEvaluatorShim

import fastwindow.config.FastWindowConf

/**
 * A window of whole-partition aggregates (`v / sum(v) OVER (PARTITION BY k)`, `count(*) OVER
 * (PARTITION BY k)`) that does not shuffle its rows: shown as `FastWindow` with "per-key
 * aggregates joined back". Where [[HashWindowAggregateExec]] needs every row of a key in one task
 * (a shuffle of every row, most of such a query's time), this reads its input twice where it is:
 * first each task's rows aggregated per key, the tasks' states merged on the driver
 * ([[KeyAggregates]]), then the rows again, each joined to its key's results from a broadcast.
 * Only the keys' states cross the network.
 *
 * Without PARTITION BY (`OVER ()`, [[fastwindow.planning.KeyAggregatesPlacement]] says when), the
 * same with one key for all rows: the aggregates run in every task instead of in the one task
 * Spark moves every row into.
 *
 * Decided at run time: when a task or all of them together have more than
 * `spark.fastwindow.keyAggregates.maxKeys` keys (the results would be too many to broadcast), or a
 * sum could overflow in some order, it gives up the first read and runs Spark's plan of the
 * window: the rows shuffled by key (a shuffle of its own, which AQE does not see), sorted by key
 * and evaluated by Spark's window. With that many keys a sort groups the rows faster than a hash
 * of the keys ([[HashWindowAggregateExec]]) does: docs/performance.md, "The whole suite over
 * cycling keys against Spark 4.3". Its output partitioning is
 * reported as unknown, truthfully for both paths;
 * [[fastwindow.planning.KeyAggregatesPlacement]] plans it only where no operator above relies on
 * the rows being clustered by key, and only over an input that can be read twice cheaply and
 * identically (a scan with filters and projections).
 */
case class KeyAggregatesWindowExec(
    windowExpression: Seq[NamedExpression],
    partitionSpec: Seq[Expression],
    child: SparkPlan)
  extends WholePartitionAggregatesExec {

  override def outputPartitioning: Partitioning = UnknownPartitioning(0)

  override def simpleString(maxFields: Int): String =
    if (partitionSpec.isEmpty) {
      s"$nodeName [${windowExpression.map(_.sql).mkString(", ")}] over all rows by every " +
        "task's aggregates merged and joined back, rows not shuffled"
    } else {
      s"$nodeName [${windowExpression.map(_.sql).mkString(", ")}] per " +
        s"[${partitionSpec.map(_.sql).mkString(", ")}] by per-key aggregates joined back, " +
        s"rows not shuffled (up to ${FastWindowConf.KEY_AGGREGATES_MAX_KEYS.get(conf)} keys)"
    }

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numKeysBroadcast" -> SQLMetrics.createMetric(sparkContext,
      "keys whose aggregates were broadcast to the rows"),
    "broadcastSize" -> SQLMetrics.createSizeMetric(sparkContext, "size of the keys' results"),
    "aggregateTime" -> SQLMetrics.createTimingMetric(sparkContext,
      "time to aggregate per key and merge (driver)"),
    "numShuffledFallbacks" -> SQLMetrics.createMetric(sparkContext,
      "times the rows were shuffled by key and sorted instead (too many keys, or a sum that " +
        "may overflow)"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size")
  )

  override protected def doExecute(): RDD[InternalRow] = {
    val plan = HashWindowAggregateExec(windowExpression, partitionSpec, child).taskPlan
    val maxKeys = FastWindowConf.KEY_AGGREGATES_MAX_KEYS.get(conf)
    val started = System.nanoTime()
    val states = child.execute().mapPartitions { rows =>
      Iterator.single(KeyAggregates.ofTask(plan, maxKeys, rows))
    }.collect()
    val perKey = KeyAggregates.merged(plan, states.toSeq, maxKeys)
    longMetric("aggregateTime") += (System.nanoTime() - started) / 1000000
    perKey match {
      case Right(results) =>
        longMetric("numKeysBroadcast") += results.size
        longMetric("broadcastSize") += results.bytes
        joinedToRows(plan, results, child.execute())
      case Left(why) =>
        logInfo(s"fastwindow: window per [${partitionSpec.map(_.sql).mkString(", ")}] shuffles " +
          s"its rows by key and sorts them: $why")
        longMetric("numShuffledFallbacks") += 1
        // Without keys, as Spark plans it: every row in one task.
        val partitioning =
          if (partitionSpec.isEmpty) SinglePartition
          else HashPartitioning(partitionSpec, fallbackPartitions(states.length))
        val outputRows = longMetric("numOutputRows")
        sparkWindow(ShuffleExchangeExec(partitioning, child)).map { r => outputRows += 1; r }
    }
  }

  /** Spark's own evaluation of the window over `shuffled` rows: its sort by key, its window. */
  private def sparkWindow(shuffled: SparkPlan): RDD[InternalRow] = {
    val sorted =
      if (partitionSpec.isEmpty) shuffled
      else SortExec(partitionSpec.map(SortOrder(_, Ascending)), global = false, child = shuffled)
    val window = WindowEvaluatorShim.sparkWindowFactory(
      sparkContext, windowExpression, partitionSpec, Nil, child.output, longMetric("spillSize"))
    sorted.execute().mapPartitionsWithIndex((index, rows) =>
      window.createEvaluator().eval(index, rows))
  }

  /**
   * The partitions of the shuffle this operator makes itself when it gives up. Without AQE,
   * Spark's shuffle partitions, as Spark's own shuffle would have. With AQE, which cannot
   * coalesce this shuffle, four per core of the cluster (at least the input's, at most Spark's
   * shuffle partitions): enough to split the keys so each task's stay in the caches, few enough
   * that tasks do not cost more than they do (measured: docs/how-it-works.md, without shuffling
   * the rows).
   */
  private def fallbackPartitions(inputPartitions: Int): Int =
    if (!conf.adaptiveExecutionEnabled) conf.numShufflePartitions
    else {
      val perCore = 4 * sparkContext.defaultParallelism
      math.min(conf.numShufflePartitions, math.max(inputPartitions, perCore))
    }

  /** Every row, where it is, joined to its key's results. */
  private def joinedToRows(
      plan: HashWindowTask.Plan,
      results: ResultsPerKey,
      rows: RDD[InternalRow]): RDD[InternalRow] = {
    val broadcast = sparkContext.broadcast(results)
    val outputRows = longMetric("numOutputRows")
    rows.mapPartitions { input =>
      val perKey = broadcast.value
      val keyOf = HashWindowTask.projection(plan, plan.keys, plan.childOutput)
      val assemble = HashWindowTask.projection(plan, plan.output,
        plan.childOutput ++ plan.resultAttributes)
      val joined = new JoinedRow
      input.map { row =>
        outputRows += 1
        assemble(joined(row, perKey.of(keyOf(row))))
      }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): KeyAggregatesWindowExec =
    copy(child = newChild)
}
