package fastwindow.exec.window

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{InterpretedUnsafeProjection, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType

import fastwindow.model.WindowPlan

/**
 * Assembles output rows, the one place that decides how: the evaluator writes each row's
 * function results into [[results]]; only the window outputs are serialized from them, and the
 * child row's bytes are copied in a few blocks ([[RowAppender]]) instead of re-projecting every
 * child column as `WindowExec` does.
 *
 * When the outputs are exactly the function results, all fixed-width, and the evaluator is
 * generated (whose ops write with typed setters), `results` is already the serialized UnsafeRow.
 * Otherwise results go to a generic row and an UnsafeProjection computes the outputs (a cast or
 * division that an optimizer rule wrapped around a function, decimals' precision checks), by
 * generated code unless `interpreted`.
 */
final class OutputAssembler(
    plan: WindowPlan,
    childTypes: Seq[DataType],
    generatedEvaluator: Boolean,
    interpreted: Boolean) {

  private val direct = generatedEvaluator && plan.resultsAreOutputs

  /** Where the evaluator writes a row's function results, by function ordinal. */
  val results: InternalRow =
    if (direct) OutputAssembler.fixedWidthRow(plan.functions.size)
    else new SpecificInternalRow(plan.resultTypes)

  /** Computes the outputs from `results` (None when `results` already is the output row). */
  private val projection: Option[UnsafeProjection] =
    if (direct) None
    else if (interpreted) Some(InterpretedUnsafeProjection.createProjection(plan.outputs))
    else Some(UnsafeProjection.create(plan.outputs))

  private val appender = new RowAppender(childTypes, plan.outputs.map(_.dataType))

  /** The serialized outputs of the results last written; reused by the projection. */
  private var outputs: UnsafeRow = _

  /** Whether every row of a partition has the same results (written once per partition). */
  val resultsPerPartition: Boolean = plan.resultsPerPartition

  /** Serializes the outputs of what the evaluator just wrote into `results`. */
  def resultsWritten(): Unit =
    outputs = if (projection.isEmpty) results.asInstanceOf[UnsafeRow] else projection.get(results)

  /** The output row of `child` with the last results; valid until the next call. */
  def join(child: UnsafeRow): UnsafeRow = appender(child, outputs)
}

object OutputAssembler {

  /** An UnsafeRow of `fields` fixed-width fields over its own bytes. */
  def fixedWidthRow(fields: Int): UnsafeRow = {
    val row = new UnsafeRow(fields)
    val size = UnsafeRow.calculateBitSetWidthInBytes(fields) + 8 * fields
    row.pointTo(new Array[Byte](size), size)
    row
  }
}
