package fastwindow.exec

import org.apache.spark.{SparkException, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, InterpretedOrdering, InterpretedUnsafeProjection, JoinedRow, NamedExpression, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeRowJoiner
import org.apache.spark.sql.catalyst.util.UnsafeRowUtils
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.window.WindowExecBase
import org.apache.spark.sql.fastwindow.PartitionRowBuffer
import org.apache.spark.sql.types.{DataType, StructField, StructType}

import fastwindow.FastWindowConf
import fastwindow.FastWindowConf.CodegenMode
import fastwindow.planning.WindowSupport

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
 * spillable row buffer and emitted with its results once complete.
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
    "numInterpretedTasks" ->
      SQLMetrics.createMetric(sparkContext, "tasks on the interpreted evaluator"))

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
      longMetric("spillSize"), longMetric("peakMemory"))
    val streaming =
      if (FastWindowConf.STREAMING_ENABLED.get(conf)) plan.streamBounds else None
    val maxPendingRows = FastWindowConf.STREAMING_MAX_PENDING_ROWS.get(conf)
    val interpretedTasks = longMetric("numInterpretedTasks")
    val bufferThresholds = PartitionRowBuffer.thresholds(conf)

    child.execute().mapPartitions { rows =>
      val (evaluator, generated) = factory.create()
      if (!generated) interpretedTasks += 1
      val iterator = new WindowPartitionIterator(
        rows,
        toUnsafe = UnsafeProjection.create(childOutput, childOutput),
        groupKey = UnsafeProjection.create(partitionExprs, childOutput),
        sameGroup = FastWindowExec.groupEquality(partitionExprs),
        evaluator = evaluator,
        streaming = streaming,
        maxPendingRows = maxPendingRows,
        buffer = new PartitionRowBuffer(bufferThresholds),
        functionTypes = functionTypes,
        outputProjection = FastWindowExec.outputProjection(outputs, interpretedEmit),
        join = FastWindowExec.joiner(
          childOutput.map(_.dataType), outputs.map(_.dataType), interpretedEmit),
        metrics = iteratorMetrics)
      Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => iterator.close()))
      iterator
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): FastWindowExec =
    copy(child = newChild)
}

object FastWindowExec {

  /**
   * Same grouping test as `WindowExec`: binary equality of the key rows when every key type
   * allows it, otherwise an ordering comparison (e.g. collated strings).
   */
  def groupEquality(partitionSpec: Seq[Expression]): (UnsafeRow, UnsafeRow) => Boolean =
    if (partitionSpec.forall(e => UnsafeRowUtils.isBinaryStable(e.dataType))) {
      (a, b) => a.equals(b)
    } else {
      val ordering = InterpretedOrdering.forSchema(partitionSpec.map(_.dataType))
      (a, b) => ordering.compare(a, b) == 0
    }

  /** Computes and serializes the window outputs of one row from its function results. */
  def outputProjection(outputs: Seq[Expression], interpreted: Boolean): UnsafeProjection =
    if (interpreted) InterpretedUnsafeProjection.createProjection(outputs)
    else UnsafeProjection.create(outputs)

  /** Appends the results to the child row (generated joiner, or its interpreted equivalent). */
  def joiner(
      childTypes: Seq[DataType],
      resultTypes: Seq[DataType],
      interpreted: Boolean): (UnsafeRow, UnsafeRow) => UnsafeRow = {
    if (interpreted) {
      val all = (childTypes ++ resultTypes).zipWithIndex.map { case (t, i) =>
        BoundReference(i, t, nullable = true)
      }
      val projection = InterpretedUnsafeProjection.createProjection(all)
      val joined = new JoinedRow
      (left, right) => projection(joined(left, right))
    } else {
      val joiner = GenerateUnsafeRowJoiner.create(schemaOf(childTypes), schemaOf(resultTypes))
      (left, right) => joiner.join(left, right)
    }
  }

  private def schemaOf(types: Seq[DataType]): StructType =
    StructType(types.zipWithIndex.map { case (t, i) => StructField(s"c$i", t) })
}
