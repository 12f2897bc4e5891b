package fastwindow.exec.hashwindow

import org.apache.spark.{PartitionEvaluatorFactory, TaskContext}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression, InterpretedMutableProjection, InterpretedUnsafeProjection, JoinedRow, MutableProjection, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.execution.UnsafeExternalRowSorter
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.fastwindow.{PartitionRowBuffer, TaskMemory}

import fastwindow.exec.shared.{ColumnMemory, MemoryBudget}

/**
 * One task of [[HashWindowAggregateExec]]: a first pass adds each row to its key's aggregation
 * buffer ([[AggregatesPerKey]]) and keeps the row in Spark's spillable row buffer; then either
 * every kept row, in input order, is joined to its group's results, or, when the group state was
 * refused memory, an update overflowed, an integral sum could overflow in another order
 * ([[IntegralSumGuard]]) or the results were refused memory, all the task's rows go to Spark's
 * external sorter and Spark's own window evaluation, as `WindowExec` would run them.
 *
 * A class of its own so that the operator only wires a task (what it reads on the driver, its
 * metrics, Spark's sorter and window for the fallback) and each step of the task has a name, as
 * the ordered window's loop has its parts (`WindowPartitionIterator`). Made on the executor, one
 * per task: it holds the task's projections, group state and row buffer, which it releases when
 * the task ends.
 */
final class HashWindowTask(
    plan: HashWindowTask.Plan,
    metrics: HashWindowTask.Metrics,
    sparkSorter: () => UnsafeExternalRowSorter,
    sparkWindow: PartitionEvaluatorFactory[InternalRow, InternalRow]) {

  private val childOutput = plan.childOutput
  private val state = new AggregatesPerKey(
    project(plan.keys, childOutput),
    plan.keys.map(_.dataType),
    project(plan.initialValues, Nil)(InternalRow.empty).copy(),
    updateProjection,
    IntegralSumGuard.of(plan.aggregates, childOutput, project(_, childOutput)),
    new MemoryBudget(TaskMemory.manager.map(new ColumnMemory(_)), plan.maxMemoryBytes)
  )
  private val buffer = new PartitionRowBuffer(plan.thresholds)
  Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => close()))

  /** The output of task `index` over its `input` rows. */
  def run(index: Int, input: Iterator[InternalRow]): Iterator[InternalRow] = {
    val toUnsafe = project(childOutput, childOutput)
    val rows = input.map {
      case u: UnsafeRow => u
      case other => toUnsafe(other)
    }
    val refused = addAll(rows)
    val result =
      if (refused == null && resultsPerKey()) joinedToResults()
      else sortedBySpark(index, Option(refused), rows)
    result.map { r => metrics.outputRows += 1; r }
  }

  /**
   * The first pass: each row added to its key's aggregates and kept, until a row is refused
   * memory or its update overflows in this order (Spark's may differ); that row, or null.
   */
  private def addAll(rows: Iterator[UnsafeRow]): UnsafeRow = {
    var refused: UnsafeRow = null
    while (refused == null && rows.hasNext) {
      val row = rows.next()
      val added =
        try state.add(row)
        catch { case _: ArithmeticException => false }
      if (added) buffer.add(row) else refused = row
    }
    refused
  }

  /**
   * After a first pass that took every row: whether the results per key are Spark's and in
   * memory (no integral sum could overflow in some order of a group's rows, and the memory for
   * the results was granted).
   */
  private def resultsPerKey(): Boolean =
    !state.mayOverflow(buffer.iterator) &&
      state.finish(project(plan.evaluations, plan.bufferAttributes))

  /** Every kept row, in input order, joined to its group's results. */
  private def joinedToResults(): Iterator[InternalRow] = {
    metrics.partitions += state.groupCount
    val assemble = project(plan.output, childOutput ++ plan.resultAttributes)
    val joined = new JoinedRow
    var i = -1
    buffer.iterator.map { row =>
      i += 1
      assemble(joined(row, state.resultsOfRow(i)))
    }
  }

  /**
   * Every row of the task (those kept, `refused`, then the `rest` not read yet) sorted by Spark's
   * external sorter (which spills) and evaluated by Spark's window: Spark's order decides, as it
   * does without fastwindow. The group state and kept rows are released first.
   */
  private def sortedBySpark(
      index: Int, refused: Option[UnsafeRow], rest: Iterator[UnsafeRow]): Iterator[InternalRow] = {
    metrics.sortedTasks += 1
    if (plan.keys.isEmpty) {
      // One group (OVER ()): nothing to sort. Spark's window takes the rows in the order they
      // came, as from its own shuffle, into its own buffer; the kept ones are released when the
      // task ends.
      state.clear()
      return sparkWindow.createEvaluator().eval(index, buffer.iterator ++ refused.iterator ++ rest)
    }
    val sorter = sparkSorter()
    buffer.iterator.foreach(sorter.insertRow)
    buffer.clear()
    state.clear()
    refused.foreach(sorter.insertRow)
    rest.foreach(sorter.insertRow)
    sparkWindow.createEvaluator().eval(index, sorter.sort())
  }

  /** At the task's end (also on failure): the metrics of its memory, and the memory back. */
  private def close(): Unit = {
    metrics.peakMemory += state.peak
    metrics.spillSize += buffer.spillSize
    buffer.clear()
    state.clear()
  }

  private def project(exprs: Seq[Expression], schema: Seq[Attribute]): UnsafeProjection =
    HashWindowTask.projection(plan, exprs, schema)

  private def updateProjection: MutableProjection = HashWindowTask.updateProjection(plan)
}

object HashWindowTask {

  /** `exprs` over rows of `schema`: generated, or interpreted where the plan asks for no code. */
  def projection(plan: Plan, exprs: Seq[Expression], schema: Seq[Attribute]): UnsafeProjection =
    if (plan.interpreted) {
      InterpretedUnsafeProjection.createProjection(BindReferences.bindReferences(exprs, schema))
    } else {
      UnsafeProjection.create(exprs, schema)
    }

  /** The aggregates' update expressions over (buffer, row), writing into the buffer. */
  def updateProjection(plan: Plan): MutableProjection =
    mutableProjection(plan, plan.updateExpressions, plan.bufferAttributes ++ plan.childOutput)

  /** `exprs` over rows of `schema`, written into a target row. */
  def mutableProjection(
      plan: Plan, exprs: Seq[Expression], schema: Seq[Attribute]): MutableProjection =
    if (plan.interpreted) {
      new InterpretedMutableProjection(BindReferences.bindReferences(exprs, schema))
    } else {
      MutableProjection.create(exprs, schema)
    }

  /**
   * What a task needs of the operator, read on the driver (where the aggregates' buffer
   * attributes get their ids, which the update and evaluation expressions refer to).
   *
   * @param evaluations each output's result over the aggregation buffers
   * @param keys the PARTITION BY keys
   * @param output the operator's output, over the child's output and `resultAttributes`
   * @param interpreted projections interpreted (the codegen mode asks for no code)
   * @param maxMemoryBytes the cap of the group state (0: none)
   */
  final case class Plan(
      aggregates: Seq[DeclarativeAggregate],
      bufferAttributes: Seq[Attribute],
      initialValues: Seq[Expression],
      updateExpressions: Seq[Expression],
      evaluations: Seq[Expression],
      childOutput: Seq[Attribute],
      resultAttributes: Seq[Attribute],
      keys: Seq[Expression],
      output: Seq[Attribute],
      interpreted: Boolean,
      maxMemoryBytes: Long,
      thresholds: PartitionRowBuffer.Thresholds)

  final case class Metrics(
      outputRows: SQLMetric,
      partitions: SQLMetric,
      peakMemory: SQLMetric,
      spillSize: SQLMetric,
      sortedTasks: SQLMetric)
}
