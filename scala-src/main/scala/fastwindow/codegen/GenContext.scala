package fastwindow.codegen

import org.apache.spark.sql.catalyst.expressions.codegen.{CodeGenerator, CodegenContext, ExprCode, FalseLiteral, JavaCode}
import org.apache.spark.sql.types.DataType

import fastwindow.exec.{ColumnSpec, EvaluatorLayout}

/**
 * The vocabulary kernels use to emit Java for the generated evaluator: how to read a buffered
 * column, write a result, declare state and methods, and bind Spark expressions to columns.
 *
 * Names in scope for kernel code: `i` (current buffered row), `n` (rows buffered), `out` (the
 * result row), [[base]] (the partition position of buffered row 0) and the peer-group fields
 * [[peerStart]], [[peerEnd]], [[peerIndex]] (see [[fastwindow.kernels.PartitionCursor]]).
 */
final class GenContext(val ctx: CodegenContext, layout: EvaluatorLayout) {

  val base = "base"
  val peerStart = "peerStart"
  val peerEnd = "peerEnd"
  val peerIndex = "peerIndex"

  def valuesArray(c: ColumnSpec): String = s"c${c.index}_values"
  def nullsArray(c: ColumnSpec): String = s"c${c.index}_nulls"

  def value(c: ColumnSpec, row: String): String = s"${valuesArray(c)}[$row]"
  def isNull(c: ColumnSpec, row: String): String = s"${nullsArray(c)}[$row]"

  /** Every column at `row`, as inputs for expressions bound to the layout's column attributes. */
  def columnVars(row: String): Seq[ExprCode] = layout.columns.map { c =>
    val isNullCode = if (c.nullable) JavaCode.isNullExpression(isNull(c, row)) else FalseLiteral
    ExprCode(isNullCode, JavaCode.expression(value(c, row), c.dataType))
  }

  def setResult(ordinal: Int, dataType: DataType, value: String): String =
    CodeGenerator.setColumn("out", dataType, ordinal, value) + ";"

  def setNull(ordinal: Int): String = s"out.setNullAt($ordinal);"

  def freshName(prefix: String): String = ctx.freshName(prefix)

  /** Declares a field of the evaluator; `init` (Java, may be empty) runs in its constructor. */
  def field(javaType: String, prefix: String, init: String): String =
    ctx.addMutableState(
      javaType,
      prefix,
      name => if (init.isEmpty) "" else s"$name = $init;",
      forceInline = true,
      useFreshName = true)

  def intField(prefix: String): String = field("int", prefix, "0")

  /** Declares a private method and returns its name. Small methods stay JIT-compilable. */
  def method(prefix: String, params: String, body: String): String = {
    val name = ctx.freshName(prefix)
    ctx.addNewFunction(name, s"private void $name($params) {\n$body\n}", inlineToOuterClass = true)
  }

  /**
   * Runs `generate` with expressions' BoundReferences resolved to `inputs` (by ordinal) instead
   * of fields of an input row.
   */
  def withInputs[T](inputs: Seq[ExprCode])(generate: => T): T = {
    val savedRow = ctx.INPUT_ROW
    val savedVars = ctx.currentVars
    ctx.INPUT_ROW = null
    ctx.currentVars = inputs
    try generate finally {
      ctx.INPUT_ROW = savedRow
      ctx.currentVars = savedVars
    }
  }
}
