package fastwindow.exec.window

import scala.annotation.tailrec

import org.apache.spark.{PartitionEvaluator, PartitionEvaluatorFactory, SparkException, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Ascending, Expression, NamedExpression, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst
  .plans.physical.{Distribution, Partitioning, RangePartitioning, UnknownPartitioning, UnspecifiedDistribution}
import org.apache.spark.sql.execution.{InputAdapter, SortExec, SparkPlan, UnaryExecNode, WholeStageCodegenExec}
import org.apache.spark.sql.execution.adaptive.{AQEShuffleReadExec, ShuffleQueryStageExec}
import org.apache.spark.sql.execution.exchange.{ReusedExchangeExec, ShuffleExchangeLike}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.window.WindowExecBase
import org.apache.spark.sql.fastwindow.{PartitionRowBuffer, TaskMemory}
import org.apache.spark.sql.fastwindow.shims.WindowEvaluatorShim

import fastwindow.config.FastWindowConf
import fastwindow.exec.acrosstasks.{PeersInOrder, RangeSeed, RangedEvaluation}
import fastwindow.config.CodegenMode
import fastwindow.exec.shared.ColumnMemory
import fastwindow.functions.WindowSupport
import fastwindow.model.{Spread, WindowPlan}

/**
 * fastwindow's replacement for Spark's `WindowExec`, shown as `FastWindow` in plans.
 *
 * It extends `WindowExecBase`, so its contract with the rest of the plan is Spark's by
 * construction: it requires `ClusteredDistribution(partitionSpec)` (all tuples in one partition
 * without PARTITION BY) and the ordering `partitionSpec ++ orderSpec`, outputs
 * `child.output ++ window attributes` with the same nullability, and preserves input order.
 *
 * The node checks itself once ([[support]]): the planner strategy builds it, keeps it only when
 * the check gives a [[WindowPlan]], and the split, the report and every task read that plan. Per
 * task it runs a [[WindowPartitionIterator]] with a [[WindowEvaluator]] (generated ops, or their
 * interpreted twins). A partition whose columns would not fit in the task's memory is handed to
 * Spark's own window evaluation (the one `WindowExec` runs), so fastwindow fits wherever Spark
 * does.
 *
 * Its input order comes from Spark's `Sort` or, with `spark.fastwindow.groupSort.enabled`, from a
 * [[fastwindow.exec.grouporder.GroupOrderExec]] below it, which makes the same order without
 * sorting the whole task.
 *
 * Without PARTITION BY, `spread` (see [[fastwindow.model.Spread]]) may split the window into
 * ranges of its ORDER BY keys, one task each, instead of Spark's one task: it then requires its
 * input range-partitioned by the ORDER BY keys, and each task evaluates its range seeded by a
 * summary of the others ([[fastwindow.exec.acrosstasks.RangedEvaluation]]). With PARTITION BY,
 * the same for the rows of each skewed key (one that holds a large share of the rows), the
 * other keys' rows hashed to their tasks whole.
 */
case class FastWindowExec(
    windowExpression: Seq[NamedExpression],
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    child: SparkPlan,
    spread: Spread = Spread.ByKey)
  extends WindowExecBase {

  override def nodeName: String = "FastWindow"

  override protected def stringArgs: Iterator[Any] =
    Iterator(windowExpression, partitionSpec, orderSpec, child) ++
      Iterator(spread.describe(skewedKeys = partitionSpec.nonEmpty, ordered = orderSpec.nonEmpty))
        .filter(_.nonEmpty)

  // Spread over ranges: the planner puts the shuffle that splits the rows into ranges below (see
  // fastwindow.exec.acrosstasks.RangeSplitExec). Without PARTITION BY the ranges are the
  // partitions of a range partitioning by the ORDER BY keys, in order (so a global ORDER BY above
  // needs no shuffle); with it, a key's rows may be in several partitions. Halo rows need the
  // order of peers within each range fixed: the operator orders them (see PeersInOrder).
  override def requiredChildDistribution: Seq[Distribution] = spread match {
    case _: Spread.Ranges => UnspecifiedDistribution :: Nil
    case _ => super.requiredChildDistribution
  }

  override def outputPartitioning: Partitioning = spread match {
    case _: Spread.Ranges if partitionSpec.isEmpty && orderSpec.nonEmpty =>
      RangePartitioning(orderSpec, child.outputPartitioning.numPartitions)
    case _: Spread.Ranges => UnknownPartitioning(child.outputPartitioning.numPartitions)
    case _ => super.outputPartitioning
  }

  /** This node spread as `newSpread` (its support check kept). */
  def spreadAs(newSpread: Spread): FastWindowExec = {
    val copied = copy(spread = newSpread)
    copied.checked = checked
    copied
  }

  /** The support check of this node, run once (and kept by copies with a new child). */
  @transient private var checked: WindowSupport.Outcome = _

  def support: WindowSupport.Outcome = {
    if (checked == null) checked = WindowSupport.check(windowExpression, orderSpec)
    checked
  }

  /** What this node runs; only planned when [[support]] gave one. */
  def windowPlan: WindowPlan = support.getOrElse(throw SparkException.internalError(
      s"FastWindowExec planned for an unsupported node: ${support.left.toOption.mkString}"))

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numWindowPartitions" -> SQLMetrics.createMetric(sparkContext, "number of window partitions"),
    "numStreamedPartitions" ->
      SQLMetrics.createMetric(sparkContext, "window partitions streamed"),
    "numBufferedPartitions" ->
      SQLMetrics.createMetric(sparkContext, "window partitions buffered whole"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size"),
    "peakMemory" -> SQLMetrics.createSizeMetric(sparkContext, "peak column and queue memory"),
    "windowTime" ->
      SQLMetrics.createTimingMetric(sparkContext, "time from first to last row (with input)"),
    "numInterpretedTasks" ->
      SQLMetrics.createMetric(sparkContext, "tasks on the interpreted evaluator"),
    "numHandedOverPartitions" ->
      SQLMetrics.createMetric(sparkContext, "window partitions handed to Spark"),
    "numRanges" -> SQLMetrics.createMetric(sparkContext, "ranges of the ORDER BY keys (tasks)"),
    "summaryTime" ->
      SQLMetrics.createTimingMetric(sparkContext, "time to summarise the ranges (driver)"),
    "numSummaryReads" -> SQLMetrics.createMetric(sparkContext,
      "reads of the shuffle's output to summarise the ranges (past the map tasks' halo cap)"),
    "numSkewedKeys" ->
      SQLMetrics.createMetric(sparkContext, "PARTITION BY keys split into ranges (skewed)"),
    "numRangesInOrder" ->
      SQLMetrics.createMetric(sparkContext, "ranges read in order from the map tasks, not sorted"),
    "numHaloRows" ->
      SQLMetrics.createMetric(sparkContext, "rows of neighbouring ranges handed to ranges (halos)"),
    "summarySize" -> SQLMetrics.createSizeMetric(sparkContext, "rows held by the ranges' summaries")
  )

  override protected def doExecute(): RDD[InternalRow] = {
    val plan = windowPlan
    val mode = FastWindowConf.CODEGEN_MODE.get(conf)
    val verify = mode == CodegenMode.Verify
    val factory =
      EvaluatorFactory(plan, child.output, if (verify) CodegenMode.CodegenOnly else mode)
    val twinFactory =
      if (verify) EvaluatorFactory(plan, child.output, CodegenMode.NoCodegen) else null
    val streaming = FastWindowConf.STREAMING_ENABLED.get(conf)
    val policy = EmitPolicy(plan, streaming)
    val rangePolicy = EmitPolicy.seededRange(plan, streaming)
    val maxPendingRows = FastWindowConf.STREAMING_MAX_PENDING_ROWS.get(conf)
    val maxPartitionBytes = FastWindowConf.MEMORY_MAX_PARTITION_BYTES.get(conf)
    val bufferThresholds = PartitionRowBuffer.thresholds(conf)
    val childOutput = child.output
    val partitionExprs = partitionSpec
    val interpretedTasks = longMetric("numInterpretedTasks")
    val iteratorMetrics = WindowPartitionIterator.Metrics(
      longMetric("numWindowPartitions"),
      longMetric("numStreamedPartitions"),
      longMetric("numBufferedPartitions"),
      longMetric("spillSize"),
      longMetric("peakMemory"),
      longMetric("windowTime"),
      longMetric("numHandedOverPartitions")
    )
    val sparkWindow = sparkWindowFactory
    val outputTypes = output.map(_.dataType)
    val seeded = spread == Spread.Seeded

    def evaluate(rows: Iterator[InternalRow], factory: EvaluatorFactory, interpreted: Boolean,
        seed: RangeSeed): Iterator[InternalRow] = {
      val evaluator = factory.create()
      if (seed != null) evaluator.seed(FastWindowExec.counted(seed.rowsBefore),
        FastWindowExec.counted(seed.windowRows), FastWindowExec.counted(seed.groupsBefore),
        seed.states)
      if (!evaluator.generated) interpretedTasks += 1
      val iterator = new WindowPartitionIterator(
        new PartitionReader(rows, UnsafeProjection.create(childOutput, childOutput),
          PartitionKey(partitionExprs, childOutput)),
        factory,
        if (seed != null && seed.ofRange) rangePolicy else policy,
        new OutputAssembler(plan, childOutput.map(_.dataType), evaluator.generated, interpreted),
        new MemoryGovernor(TaskMemory.manager.map(new ColumnMemory(_)), maxPartitionBytes),
        new PartitionRowBuffer(bufferThresholds),
        maxPendingRows,
        if (seeded && seed != null && !seed.wholeWindow) None
        else Some(FastWindowExec.handOverTo(sparkWindow.createEvaluator())),
        iteratorMetrics,
        evaluator
      )
      Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => iterator.close()))
      iterator
    }

    def run(rows: Iterator[InternalRow], seed: RangeSeed): Iterator[InternalRow] =
      if (!verify) evaluate(rows, factory, interpreted = mode == CodegenMode.NoCodegen, seed)
      else {
        TwinCheck(rows, outputTypes)(
          evaluate(_, factory, interpreted = false, seed),
          evaluate(_, twinFactory, interpreted = true, seed))
      }

    // Counted as returned: a range evaluated with halo rows drops them, and may stop before its
    // last window partition ends.
    val outputRows = longMetric("numOutputRows")
    val evaluated = spread match {
      case ranges: Spread.Ranges => RangedEvaluation(
          plan,
          partitionSpec,
          requiredChildOrdering.head,
          ranges,
          FastWindowExec.rangeShuffle(child),
          child.execute(),
          FastWindowConf.ACROSS_TASKS_RANGES_IN_ORDER.get(conf) && FastWindowExec.sortsOnly(child),
          run,
          ranges match {
            case _: Spread.Halos => PeersInOrder.of(partitionSpec, orderSpec, child,
                interpreted = mode == CodegenMode.NoCodegen)
            case Spread.Seeded => identity
          },
          RangedEvaluation.Metrics(
            longMetric("numRanges"),
            longMetric("summaryTime"),
            longMetric("numSummaryReads"),
            longMetric("numSkewedKeys"),
            longMetric("numRangesInOrder"),
            longMetric("numHaloRows"),
            longMetric("summarySize")
          )
        )
      case _ => child.execute().mapPartitions(run(_, null))
    }
    evaluated.mapPartitions(_.map { row => outputRows += 1; row }, preservesPartitioning = true)
  }

  /**
   * Spark's own window evaluation of this node (what `WindowExec` runs), for partitions whose
   * buffers do not fit in memory. Its spills count in this node's spill size; its segment-tree
   * frame counts (when `spark.sql.window.segmentTree.enabled`) are not shown.
   */
  private def sparkWindowFactory: PartitionEvaluatorFactory[InternalRow, InternalRow] =
    WindowEvaluatorShim.sparkWindowFactory(
      sparkContext, windowExpression, partitionSpec, orderSpec, child.output,
      longMetric("spillSize"))

  // The plan depends on the window expressions only, so a new child keeps it (and the spread).
  override protected def withNewChildInternal(newChild: SparkPlan): FastWindowExec = {
    val copied = copy(child = newChild)
    copied.checked = checked
    copied
  }
}

object FastWindowExec {

  /**
   * The range shuffle below an operator spread over ranges (the planner put it there), through
   * what orders each task's rows, its codegen wrappers and a halo operator below a seeded one.
   */
  @tailrec
  def rangeShuffle(plan: SparkPlan): SparkPlan = plan match {
    case read @ (_: AQEShuffleReadExec | _: ShuffleExchangeLike) => read
    case one: UnaryExecNode => rangeShuffle(one.child)
    case other => other // a query stage or a reused exchange
  }

  /**
   * Whether `plan` is Spark's sort of a shuffle's rows and nothing else (through its codegen
   * wrappers), so that the shuffle's rows read in order are what it returns.
   */
  @tailrec
  def sortsOnly(plan: SparkPlan, sorted: Boolean = false): Boolean = plan match {
    case _: AQEShuffleReadExec | _: ShuffleExchangeLike | _: ShuffleQueryStageExec |
        _: ReusedExchangeExec => sorted
    case codegen: WholeStageCodegenExec => sortsOnly(codegen.child, sorted)
    case adapter: InputAdapter => sortsOnly(adapter.child, sorted)
    case sort: SortExec if !sorted && !sort.global => sortsOnly(sort.child, sorted = true)
    case _ => false
  }

  /**
   * A count of a seed (rows or peer groups before a range, rows of the window) as the int that
   * window functions count in (Spark's row_number and rank are ints, and its window buffers hold
   * at most an int's rows); a window partition of more rows fails the task, never wraps.
   */
  def counted(n: Long): Int =
    if (n.isValidInt) n.toInt
    else throw new SparkException(s"fastwindow: a window partition counts $n rows or peer " +
      s"groups, more than the ${Int.MaxValue} that window functions count in")

  /** Evaluates the rows of one window partition with `spark` (created once per task, if used). */
  def handOverTo(spark: => PartitionEvaluator[InternalRow, InternalRow])
      : Iterator[UnsafeRow] => Iterator[InternalRow] = {
    lazy val evaluator = spark
    rows => evaluator.eval(TaskContext.getPartitionId(), rows)
  }
}
