package fastwindow.exec.grouplimit

import java.util.Comparator

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Ascending, Attribute, Expression, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.plans.physical.{AllTuples, ClusteredDistribution, Distribution, Partitioning}
import org.apache.spark.sql.execution.{SortExec, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.window.{Final, Partial, WindowGroupLimitMode}
import org.apache.spark.sql.fastwindow.TaskMemory

import fastwindow.config.FastWindowConf
import fastwindow.config.CodegenMode
import fastwindow.exec.shared.{ColumnMemory, MemoryBudget, RowOrderings}
import fastwindow.frames.RankLimit

/**
 * The top-k rows per group by hash, in place of Spark's sort-based `WindowGroupLimitExec`.
 *
 * Spark's optimizer puts that operator below a window filtered by `row_number() / rank() /
 * dense_rank() <= k`; this one is shown as `FastGroupLimit` in plans. Where Spark sorts every row
 * of the task by (PARTITION BY keys, ORDER BY keys) to keep each group's first k, this keeps them
 * in a hash map of per-group bounded buffers ([[TopKPerKey]]): O(n log k), and no `Sort` below it
 * in the plan.
 *
 *  - `Partial` (before the shuffle) requires nothing of its input and keeps, per group, the rows
 *    the limit may keep among the task's rows: a superset of what the group keeps, which is all a
 *    partial limit must give. Its output has no order. When memory is refused it emits what it
 *    holds and starts over (a larger superset, still correct); while holding drops too few rows
 *    to pay for itself, it passes rows on uncut, and holds again once keys come back
 *    ([[PartialGroupLimit]], judged over the whole task by a [[HoldingJudge]]).
 *  - `Final` (after the shuffle) requires only the clustering, and emits each group's kept rows
 *    sorted, groups in key order: the ordering the window above requires, so no `Sort` is planned
 *    between them; the sort concerns the survivors only. When memory is refused it gives what it
 *    holds and the rest of its input to Spark's external sorter (which spills) and applies the
 *    limit to the sorted rows ([[SortedGroupLimit]]); the output and its order are the same. It
 *    does the same when its first rows had nearly a key each: a group per row, read back in key
 *    order, reads the rows in random order, where the sorter's pages read them in turn.
 *
 * It is a `UnaryExecNode`, not a `WindowExecBase`: Spark rules that treat window operators as
 * order-preserving (4.3's `PushDownLocalSort`) must not see one in a node that reorders.
 */
case class HashGroupLimitExec(
    partitionSpec: Seq[Expression],
    orderSpec: Seq[SortOrder],
    rankLikeFunction: Expression,
    limit: Int,
    mode: WindowGroupLimitMode,
    rank: RankLimit,
    child: SparkPlan)
  extends UnaryExecNode {

  override def nodeName: String = "FastGroupLimit"

  override def output: Seq[Attribute] = child.output

  override def requiredChildDistribution: Seq[Distribution] = mode match {
    case Partial => super.requiredChildDistribution
    case Final =>
      if (partitionSpec.isEmpty) AllTuples :: Nil else ClusteredDistribution(partitionSpec) :: Nil
  }

  override def requiredChildOrdering: Seq[Seq[SortOrder]] = Seq(Nil)

  /** The order the final mode produces on both its paths, and the window above requires. */
  private def groupOrder: Seq[SortOrder] = partitionSpec.map(SortOrder(_, Ascending)) ++ orderSpec

  override def outputOrdering: Seq[SortOrder] = mode match {
    case Partial => Nil
    case Final => groupOrder
  }

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override def simpleString(maxFields: Int): String =
    s"$nodeName ${rankLikeFunction.sql} <= $limit per [${partitionSpec.map(_.sql).mkString(", ")}]" +
      s" order by [${orderSpec.map(_.sql).mkString(", ")}], $mode, no sort"

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "peakMemory" -> SQLMetrics.createSizeMetric(sparkContext, "peak memory of the kept rows"),
    "numEarlyEmits" -> SQLMetrics.createMetric(sparkContext,
      "times memory was refused and the kept rows were emitted early (partial)"),
    "numSortedTasks" -> SQLMetrics.createMetric(
      sparkContext,
      "tasks that sorted their rows: memory refused or keys nearly distinct (final); the rest " +
        "of their rows, a limit over many keys that drops rows (partial)"
    ),
    "numPassedRows" -> SQLMetrics.createMetric(sparkContext,
      "rows passed on unheld, holding them would have dropped too few (partial)"),
    "numHoldResumes" -> SQLMetrics.createMetric(sparkContext,
      "times holding started again after rows were passed on, keys coming back (partial)")
  )

  /**
   * What the final mode reads: its partial limit's input when that is already clustered as the
   * final mode requires (no shuffle between them, so the partial pass would find the same groups
   * again), as Spark's `RemoveRedundantWindowGroupLimits` does for its own operator.
   */
  private def source: SparkPlan = child match {
    case partial: HashGroupLimitExec
        if mode == Final && partial.mode == Partial &&
          partial.child.outputPartitioning.satisfies(requiredChildDistribution.head) =>
      partial.child
    case _ => child
  }

  override protected def doExecute(): RDD[InternalRow] = {
    val childOutput = child.output
    val keys = partitionSpec
    val rankOrder = orderSpec
    val (rankKind, k, partial) = (rank, limit, mode == Partial)
    val interpreted = FastWindowConf.CODEGEN_MODE.get(conf) == CodegenMode.NoCodegen
    val maxBytes = FastWindowConf.GROUP_LIMIT_MAX_MEMORY_BYTES.get(conf)
    val sampleRows = FastWindowConf.DISTINCT_KEYS_SAMPLE_ROWS.get(conf)
    val sorting = SortExec(groupOrder, global = false, child = child)
    val (outputRows, peak) = (longMetric("numOutputRows"), longMetric("peakMemory"))
    val (earlyEmits, sortedTasks) = (longMetric("numEarlyEmits"), longMetric("numSortedTasks"))
    val (passedRows, holdResumes) = (longMetric("numPassedRows"), longMetric("numHoldResumes"))

    source.execute().mapPartitions { input =>
      val memory = TaskMemory.manager.map(new ColumnMemory(_))
      val order = RowOrderings.ordering(rankOrder, childOutput, interpreted)
      val keyOf = UnsafeProjection.create(keys, childOutput)
      val groups = new TopKPerKey(
        keyOf,
        keys.map(_.dataType),
        rankKind,
        k,
        order,
        if (interpreted) None else IntegralOrderBounds(rankOrder, childOutput, rankKind.keepsTies),
        new MemoryBudget(memory, maxBytes)
      )
      val toUnsafe = UnsafeProjection.create(childOutput, childOutput)
      def limitSorted(sorted: Iterator[InternalRow]): Iterator[InternalRow] =
        new SortedGroupLimit(sorted, UnsafeProjection.create(keys, childOutput), rankKind, k, order)
      // Spark's way: every row sorted, then the limit over them.
      def sortedLimit(rest: Iterator[UnsafeRow]): Iterator[InternalRow] = {
        sortedTasks += 1
        val sorter = sorting.createSorter()
        rest.foreach(sorter.insertRow)
        limitSorted(sorter.sort())
      }
      val rows = input.map {
        case u: UnsafeRow => u
        case other => toUnsafe(other)
      }
      Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit] { _ =>
        peak += groups.peak
        groups.clear()
      })
      val out =
        if (partial) {
          val judge = if (sampleRows <= 0) None
          else Some(PartialGroupLimit.judge(groups, k, sampleRows))
          val sortRest = if (groups.keepsRowsInArena) None
          else Some(sortedLimit(_: Iterator[UnsafeRow]))
          new PartialGroupLimit(rows, groups, judge, () => earlyEmits += 1, () => passedRows += 1,
            () => holdResumes += 1, sortRest)
        } else {
          val keyOrder = RowOrderings.keyOrder(keys, interpreted)
          HashGroupLimitExec.finalRows(
            rows,
            groups,
            keyOrder,
            sampleRows,
            () => {
              sortedTasks += 1
              sorting.createSorter()
            },
            limitSorted
          )
        }
      out.map { r => outputRows += 1; r }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): HashGroupLimitExec =
    copy(child = newChild)
}

object HashGroupLimitExec {

  /**
   * The final mode's output: every group's kept rows in order, groups in key order; or, once
   * memory is refused, or when the first `sampleRows` rows (0: never) had nearly a key each (a
   * group per row), every row held or still to come given to `sorter` and limited by
   * `limitSorted` (a row dropped already is in no group's limit).
   */
  def finalRows(
      rows: Iterator[UnsafeRow],
      groups: TopKPerKey,
      keyOrder: Comparator[UnsafeRow],
      sampleRows: Long,
      sorter: () => org.apache.spark.sql.execution.UnsafeExternalRowSorter,
      limitSorted: Iterator[InternalRow] => Iterator[InternalRow]): Iterator[InternalRow] = {
    var refused: UnsafeRow = null
    var sorts = false
    var read = 0L
    while (!sorts && rows.hasNext) {
      val row = rows.next()
      read += 1
      if (!groups.offer(row)) {
        refused = row
        sorts = true
      } else if (read == sampleRows && groups.nearlyDistinct(read)) {
        sorts = true
      }
    }
    if (!sorts) {
      groups.keptRows(groups.idsInKeyOrder(keyOrder).iterator)
    } else {
      val external = sorter()
      groups.heldRows.foreach(external.insertRow)
      groups.clear()
      if (refused != null) external.insertRow(refused)
      rows.foreach(external.insertRow)
      limitSorted(external.sort())
    }
  }
}
