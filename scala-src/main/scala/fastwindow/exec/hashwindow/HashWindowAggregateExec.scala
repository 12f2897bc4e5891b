package fastwindow.exec.hashwindow

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, AttributeSet, BindReferences, Expression, InterpretedMutableProjection, InterpretedUnsafeProjection, JoinedRow, MutableProjection, NamedExpression, SortOrder, UnsafeProjection, UnsafeRow, WindowExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, DeclarativeAggregate}
import org.apache.spark.sql.catalyst.plans.physical.{ClusteredDistribution, Distribution, Partitioning}
import org.apache.spark.sql.execution.{SortExec, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.fastwindow.{PartitionRowBuffer, TaskMemory}
import org.apache.spark.sql.fastwindow.shims.WindowEvaluatorShim

import fastwindow.config.FastWindowConf
import fastwindow.config.FastWindowConf.CodegenMode
import fastwindow.exec.shared.{ColumnMemory, MemoryBudget}

/**
 * A window of whole-partition aggregates without ORDER BY (`sum(v) OVER (PARTITION BY k)`,
 * `count(*) OVER (PARTITION BY k)`, as in "share of the group's total") evaluated without sorting:
 * shown as `FastWindow` in plans, with "by hash, no sort".
 *
 * Spark sorts every row of the task by the keys only to find where each group starts. This
 * requires only the clustering, so no `Sort` is planned below it, and makes two passes over the
 * task's rows: the first adds each row to its key's aggregation buffer ([[AggregatesPerKey]]) and
 * keeps the row in Spark's spillable row buffer (the one `WindowExec` buffers partitions in); the
 * second emits every row, in input order, joined to its group's results. Only aggregates whose
 * results do not depend on the order of a group's rows run here, so the results are Spark's.
 * Its output has no order (it reports none).
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
    child: SparkPlan) extends UnaryExecNode {

  override def nodeName: String = "FastWindow"

  override def output: Seq[Attribute] = child.output ++ windowExpression.map(_.toAttribute)

  override def producedAttributes: AttributeSet = AttributeSet(windowExpression.map(_.toAttribute))

  override def requiredChildDistribution: Seq[Distribution] =
    ClusteredDistribution(partitionSpec) :: Nil

  override def requiredChildOrdering: Seq[Seq[SortOrder]] = Seq(Nil)

  override def outputOrdering: Seq[SortOrder] = Nil

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
      "tasks that sorted their rows (memory refused, or a sum that may overflow)"))

  private def aggregates: Seq[DeclarativeAggregate] = windowExpression.map(_.collectFirst {
    case ae: AggregateExpression => ae.aggregateFunction.asInstanceOf[DeclarativeAggregate]
  }.get)

  override protected def doExecute(): RDD[InternalRow] = {
    val aggs = aggregates
    val bufferAttrs = aggs.flatMap(_.aggBufferAttributes)
    val initial = aggs.flatMap(_.initialValues)
    val updates = aggs.flatMap(_.updateExpressions)
    // Each output: its aggregate's result, under what Spark's optimizer put around it, if anything.
    val evaluations = windowExpression.map(_.children.head.transformDown {
      case w: WindowExpression => w.windowFunction.asInstanceOf[AggregateExpression]
        .aggregateFunction.asInstanceOf[DeclarativeAggregate].evaluateExpression
    })
    val (childOutput, resultAttrs, keys, out) =
      (child.output, windowExpression.map(_.toAttribute), partitionSpec, output)
    val interpreted = FastWindowConf.CODEGEN_MODE.get(conf) == CodegenMode.NoCodegen
    val maxBytes = FastWindowConf.HASH_WINDOW_MAX_MEMORY_BYTES.get(conf)
    val thresholds = PartitionRowBuffer.thresholds(conf)
    val sorting = SortExec(partitionSpec.map(SortOrder(_, Ascending)), global = false, child = child)
    val sparkWindow = WindowEvaluatorShim.sparkWindowFactory(
      sparkContext, windowExpression, partitionSpec, Nil, child.output, longMetric("spillSize"))
    val (outputRows, partitions) = (longMetric("numOutputRows"), longMetric("numWindowPartitions"))
    val (peak, spill, sortedTasks) =
      (longMetric("peakMemory"), longMetric("spillSize"), longMetric("numSortedTasks"))

    child.execute().mapPartitionsWithIndex { (index, input) =>
      def project(exprs: Seq[Expression], schema: Seq[Attribute]): UnsafeProjection =
        if (interpreted) {
          InterpretedUnsafeProjection.createProjection(BindReferences.bindReferences(exprs, schema))
        } else {
          UnsafeProjection.create(exprs, schema)
        }
      val update: MutableProjection =
        if (interpreted) {
          new InterpretedMutableProjection(
            BindReferences.bindReferences(updates, bufferAttrs ++ childOutput))
        } else {
          MutableProjection.create(updates, bufferAttrs ++ childOutput)
        }
      val guard = IntegralSumGuard.of(aggs, childOutput, project(_, childOutput))
      val state = new AggregatesPerKey(project(keys, childOutput), keys.map(_.dataType),
        project(initial, Nil)(InternalRow.empty).copy(), update, guard,
        new MemoryBudget(TaskMemory.manager.map(new ColumnMemory(_)), maxBytes))
      val buffer = new PartitionRowBuffer(thresholds)
      Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit] { _ =>
        peak += state.peak
        spill += buffer.spillSize
        buffer.clear()
        state.clear()
      })
      val toUnsafe = project(childOutput, childOutput)
      val rows = input.map {
        case u: UnsafeRow => u
        case other => toUnsafe(other)
      }

      // A row refused memory, or whose update overflowed in this order (Spark's may differ).
      var refused: UnsafeRow = null
      while (refused == null && rows.hasNext) {
        val row = rows.next()
        val added = try state.add(row) catch { case _: ArithmeticException => false }
        if (added) buffer.add(row) else refused = row
      }
      val sortless = refused == null && !state.mayOverflow(buffer.iterator) &&
        state.finish(project(evaluations, bufferAttrs))
      val result: Iterator[InternalRow] = if (sortless) {
        partitions += state.groupCount
        HashWindowAggregateExec.joinResults(buffer.iterator, state,
          project(out, childOutput ++ resultAttrs))
      } else {
        sortedTasks += 1
        val sorter = sorting.createSorter()
        buffer.iterator.foreach(sorter.insertRow)
        buffer.clear()
        state.clear()
        if (refused != null) sorter.insertRow(refused)
        rows.foreach(sorter.insertRow)
        sparkWindow.createEvaluator().eval(index, sorter.sort())
      }
      result.map { r => outputRows += 1; r }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): HashWindowAggregateExec =
    copy(child = newChild)
}

object HashWindowAggregateExec {
  /** Every buffered row, in input order, joined to its group's results. */
  private def joinResults(rows: Iterator[UnsafeRow], state: AggregatesPerKey,
      assemble: UnsafeProjection): Iterator[InternalRow] = {
    val joined = new JoinedRow
    var i = -1
    rows.map { row =>
      i += 1
      assemble(joined(row, state.resultsOfRow(i)))
    }
  }
}
