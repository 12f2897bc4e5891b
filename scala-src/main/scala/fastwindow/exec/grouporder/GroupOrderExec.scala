package fastwindow.exec.grouporder

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Ascending, Attribute, Expression, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst
  .plans.physical.{ClusteredDistribution, Distribution, Partitioning, UnspecifiedDistribution}
import org.apache.spark.sql.execution.{SortExec, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.fastwindow.TaskMemory

import fastwindow.config.FastWindowConf
import fastwindow.config.CodegenMode
import fastwindow.exec.shared.{ColumnMemory, MemoryBudget, RowOrderings}

/**
 * The input order of a window, made without Spark's `Sort` (shown as `FastGroupOrder` in plans):
 * each task's rows grouped by PARTITION BY key by hash in O(n), the keys sorted, and each window
 * partition sorted alone by the ORDER BY keys ([[GroupedSorter]]). Its output is in the order
 * Spark's `Sort` below a window gives (keys ascending, NULL first, ties in input order), and it
 * says so, so the [[fastwindow.exec.window.FastWindowExec]] above it requires that order as
 * `WindowExec` does and no `Sort` is planned; nothing above sorts again either.
 *
 * It is a node of its own, neither a `SortExec` nor order-preserving, so Spark rules that move
 * sorts through operators (4.3's `PushDownLocalSort` widens a sort below a chain of windows) stop
 * at it: a window that reordered its own input would be crossed as order-preserving, and a sort
 * widened below it would be undone. Input already in its order (a window below by the same keys)
 * passes through. A task whose rows do not fit in memory, or whose keys are nearly all distinct
 * (then grouping buys nothing), is sorted by Spark's spilling sorter instead, into the same order.
 */
case class GroupOrderExec(
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    child: SparkPlan,
    skewedKeysSplit: Boolean = false)
  extends UnaryExecNode {

  override def nodeName: String = "FastGroupOrder"

  override def output: Seq[Attribute] = child.output

  // Below a window whose skewed keys are split over tasks, the split's shuffle decides which
  // rows a task gets (a skewed key's in several).
  override def requiredChildDistribution: Seq[Distribution] =
    (if (skewedKeysSplit) UnspecifiedDistribution else ClusteredDistribution(partitionSpec)) :: Nil

  override def outputPartitioning: Partitioning = child.outputPartitioning

  /** The order Spark's `Sort` below a window gives: by PARTITION BY keys, then ORDER BY keys. */
  private def windowOrder: Seq[SortOrder] = partitionSpec.map(SortOrder(_, Ascending)) ++ orderSpec

  override def outputOrdering: Seq[SortOrder] =
    if (groupsOwnRows) windowOrder else child.outputOrdering

  /** Whether this orders its rows: its input does not come in the window's order already. */
  def groupsOwnRows: Boolean = !SortOrder.orderingSatisfies(child.outputOrdering, windowOrder)

  override def simpleString(maxFields: Int): String =
    s"$nodeName [${partitionSpec.mkString(", ")}], [${orderSpec.mkString(", ")}], " +
      (if (groupsOwnRows) "partitions grouped by hash and sorted apart" else "input in order")

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numSortedTasks" -> SQLMetrics.createMetric(sparkContext,
      "tasks whose rows Spark sorted (memory refused to group them, or keys nearly distinct)"),
    "groupSortPeakMemory" -> SQLMetrics.createSizeMetric(sparkContext,
      "peak memory of the rows grouped by key")
  )

  override protected def doExecute(): RDD[InternalRow] =
    if (!groupsOwnRows) child.execute() else child.execute().mapPartitions(inWindowOrder)

  /**
   * Per task: its rows grouped by key, each window partition sorted ([[GroupedSorter]]), or, when
   * memory is refused or the keys are nearly distinct, sorted by Spark's external sorter as
   * `WindowExec`'s input would be.
   */
  private def inWindowOrder: Iterator[InternalRow] => Iterator[InternalRow] = {
    val (childOutput, keys, order) = (child.output, partitionSpec, orderSpec)
    val interpreted = FastWindowConf.CODEGEN_MODE.get(conf) == CodegenMode.NoCodegen
    val maxBytes = FastWindowConf.GROUP_SORT_MAX_MEMORY_BYTES.get(conf)
    val sampleRows = FastWindowConf.DISTINCT_KEYS_SAMPLE_ROWS.get(conf)
    val sorting = SortExec(windowOrder, global = false, child)
    val (sortedTasks, peak) = (longMetric("numSortedTasks"), longMetric("groupSortPeakMemory"))
    input => {
      val sorter = new GroupedSorter(
        UnsafeProjection.create(keys, childOutput),
        keys.map(_.dataType),
        RowOrderings.keyOrder(keys, interpreted),
        GroupedSorter.orderFor(order, childOutput, interpreted),
        new MemoryBudget(TaskMemory.manager.map(new ColumnMemory(_)), maxBytes)
      )
      Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit] { _ =>
        peak += sorter.peak
        sorter.clear()
      })
      val toUnsafe = UnsafeProjection.create(childOutput, childOutput)
      val rows = input.map {
        case u: UnsafeRow => u
        case other => toUnsafe(other)
      }
      GroupedSorter.order(rows, sorter, childOutput.size, sampleRows, () => sorting.createSorter(),
        () => sortedTasks += 1)
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): GroupOrderExec =
    copy(child = newChild)
}
