package fastwindow.exec

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Evaluates every window function of one [[FastWindowExec]] over one partition at a time.
 *
 * Protocol, per partition: `startPartition()`, `ingest(row)` for each of its rows in order,
 * `finishPartition()`, then `write(i, out)` for i = 0 until `numRows`, in order. `ingest` copies
 * each function's inputs out of the row into columnar buffers (the row itself is buffered by the
 * caller); `write` fills ordinal k of `out` with the k-th window expression's result for row i.
 *
 * Two implementations keep this contract: a class generated and compiled per operator
 * ([[fastwindow.codegen.EvaluatorCodegen]]) and [[InterpretedEvaluator]], its twin, used when
 * compilation fails or when `spark.fastwindow.codegen.mode=NO_CODEGEN`. Instances are reused for
 * every partition of a task, so buffers are allocated once and only grow.
 */
abstract class WindowEvaluator {
  def startPartition(): Unit
  def ingest(row: InternalRow): Unit
  def numRows: Int
  def finishPartition(): Unit
  def write(i: Int, out: InternalRow): Unit
}
