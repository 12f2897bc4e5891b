package fastwindow.exec

import org.apache.spark.{PartitionEvaluator, SparkException, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, InterpretedUnsafeProjection, NamedExpression, SortOrder, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.window.{WindowEvaluatorFactory, WindowExecBase}
import org.apache.spark.sql.fastwindow.{PartitionRowBuffer, TaskMemory}
import org.apache.spark.sql.types.{DataType, DecimalType}

import fastwindow.FastWindowConf
import fastwindow.FastWindowConf.CodegenMode
import fastwindow.planning.{AggregateSpec, FrameShape, WindowSupport}

/**
 * fastwindow's replacement for Spark's `WindowExec`, shown as `FastWindow` in plans.
 *
 * It extends `WindowExecBase`, so its contract with the rest of the plan is Spark's by
 * construction: it requires `ClusteredDistribution(partitionSpec)` (all tuples in one partition
 * without PARTITION BY) and the ordering `partitionSpec ++ orderSpec`, outputs
 * `child.output ++ window attributes` with the same nullability, and preserves input order.
 *
 * Per task it runs a [[WindowPartitionIterator]] with a [[WindowEvaluator]] (generated, or its
 * interpreted twin): function inputs are extracted into primitive columns as rows arrive; when
 * every function needs only bounded look-ahead and history the rows stream through (see
 * [[fastwindow.planning.StreamBounds]]), otherwise each window partition is buffered in Spark's
 * spillable row buffer and emitted with its results once complete. A partition whose columns
 * would not fit in the task's memory is handed to Spark's own window evaluation (the one
 * `WindowExec` runs), so fastwindow fits wherever Spark does.
 *
 * Only planned by [[fastwindow.planning.FastWindowStrategy]] after [[WindowSupport.check]] accepted
 * the node, which `doExecute` re-derives (it is deterministic) rather than serializing it.
 */
case class FastWindowExec(
    windowExpression: Seq[NamedExpression],
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    child: SparkPlan) extends WindowExecBase {

  override def nodeName: String = "FastWindow"

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
      SQLMetrics.createMetric(sparkContext, "window partitions handed to Spark (memory)"))

  override protected def doExecute(): RDD[InternalRow] = {
    val plan = WindowSupport.check(windowExpression, orderSpec) match {
      case Right(p) => p
      case Left(reason) =>
        throw SparkException.internalError(s"FastWindowExec planned for an unsupported node: $reason")
    }
    val layout = EvaluatorLayout(plan, child.output)
    val mode = FastWindowConf.CODEGEN_MODE.get(conf)
    val factory = EvaluatorFactory(layout, mode)
    val interpretedEmit = mode == CodegenMode.NoCodegen
    val childOutput = child.output
    val partitionExprs = partitionSpec
    val functionTypes = layout.functionTypes
    val outputs = plan.outputs
    val iteratorMetrics = WindowPartitionIterator.Metrics(
      longMetric("numOutputRows"), longMetric("numWindowPartitions"),
      longMetric("numStreamedPartitions"), longMetric("numBufferedPartitions"),
      longMetric("spillSize"), longMetric("peakMemory"), longMetric("windowTime"),
      longMetric("numHandedOverPartitions"))
    val streaming =
      if (FastWindowConf.STREAMING_ENABLED.get(conf)) plan.streamBounds else None
    val maxPendingRows = FastWindowConf.STREAMING_MAX_PENDING_ROWS.get(conf)
    val interpretedTasks = longMetric("numInterpretedTasks")
    val bufferThresholds = PartitionRowBuffer.thresholds(conf)

    val resultsAreOutputs = FastWindowExec.resultsAreOutputs(outputs, functionTypes)
    val readsNoRowsOnWrite = plan.readsNoRowsOnWrite
    val maxPartitionBytes = FastWindowConf.MEMORY_MAX_PARTITION_BYTES.get(conf)
    val sparkWindow = sparkWindowFactory

    child.execute().mapPartitions { rows =>
      val (evaluator, generated) = factory.create()
      if (!generated) interpretedTasks += 1
      // Generated kernels write with typed setters, which an UnsafeRow of fixed-width fields
      // takes directly; the interpreted ones use `update`, which only generic rows implement.
      val (results, project): (InternalRow, InternalRow => UnsafeRow) =
        if (generated && resultsAreOutputs) {
          val row = FastWindowExec.fixedWidthRow(functionTypes.size)
          (row, _ => row)
        } else {
          val projection = FastWindowExec.outputProjection(outputs, interpretedEmit)
          (new SpecificInternalRow(functionTypes), row => projection(row))
        }
      val iterator = new WindowPartitionIterator(
        rows,
        toUnsafe = UnsafeProjection.create(childOutput, childOutput),
        partitionKey = PartitionKey(partitionExprs, childOutput),
        evaluator = evaluator,
        renewEvaluator = () => factory.renew(evaluator),
        streaming = streaming,
        readsNoRowsOnWrite = readsNoRowsOnWrite,
        maxPendingRows = maxPendingRows,
        buffer = new PartitionRowBuffer(bufferThresholds),
        memory = TaskMemory.manager.map(new ColumnMemory(_)),
        maxPartitionBytes = maxPartitionBytes,
        sparkWindow = FastWindowExec.handOverTo(sparkWindow.createEvaluator()),
        results = results,
        project = project,
        resultsPerPartition = plan.functions.forall {
          case a: AggregateSpec => a.frame == FrameShape.WholePartition
          case _ => false
        },
        join = new RowAppender(childOutput.map(_.dataType), outputs.map(_.dataType)),
        metrics = iteratorMetrics)
      Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => iterator.close()))
      iterator
    }
  }

  /**
   * Spark's own window evaluation of this node (what `WindowExec` runs), for partitions whose
   * buffers do not fit in memory. Its spills count in this node's spill size; its segment-tree
   * frame counts (when `spark.sql.window.segmentTree.enabled`) are not shown.
   */
  private def sparkWindowFactory: WindowEvaluatorFactory = new WindowEvaluatorFactory(
    windowExpression, partitionSpec, orderSpec, child.output, longMetric("spillSize"),
    SQLMetrics.createMetric(sparkContext, "segment tree frames"),
    SQLMetrics.createMetric(sparkContext, "segment tree fallback frames"))

  override protected def withNewChildInternal(newChild: SparkPlan): FastWindowExec =
    copy(child = newChild)
}

object FastWindowExec {

  /**
   * Whether the window outputs are exactly the function results in order (no wrapping cast or
   * division) and all fixed-width, so the evaluator can write them straight into the output row.
   */
  def resultsAreOutputs(outputs: Seq[Expression], functionTypes: Seq[DataType]): Boolean =
    outputs.size == functionTypes.size &&
      outputs.zipWithIndex.forall {
        case (b: BoundReference, i) => b.ordinal == i
        case _ => false
      } &&
      // Decimals stay on the projection, which also re-checks their precision as Spark does.
      functionTypes.forall(t => UnsafeRow.isFixedLength(t) && !t.isInstanceOf[DecimalType])

  /** Evaluates the rows of one window partition with `spark` (created once per task, if used). */
  def handOverTo(spark: => PartitionEvaluator[InternalRow, InternalRow])
      : Iterator[UnsafeRow] => Iterator[InternalRow] = {
    lazy val evaluator = spark
    rows => evaluator.eval(TaskContext.getPartitionId(), rows)
  }

  /** An UnsafeRow of `fields` fixed-width fields over its own bytes. */
  def fixedWidthRow(fields: Int): UnsafeRow = {
    val row = new UnsafeRow(fields)
    val size = UnsafeRow.calculateBitSetWidthInBytes(fields) + 8 * fields
    row.pointTo(new Array[Byte](size), size)
    row
  }

  /** Computes and serializes the window outputs of one row from its function results. */
  def outputProjection(outputs: Seq[Expression], interpreted: Boolean): UnsafeProjection =
    if (interpreted) InterpretedUnsafeProjection.createProjection(outputs)
    else UnsafeProjection.create(outputs)
}
