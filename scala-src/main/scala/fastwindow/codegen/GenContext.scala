package fastwindow.codegen

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions
  .codegen.{CodeGenerator, CodegenContext, ExprCode, FalseLiteral, JavaCode}
import org.apache.spark.sql.types.DataType

import fastwindow.columns.{Column, ColumnLayout, ColumnSpec, ColumnType}

/**
 * The vocabulary the ops generators share: reading a buffered column, binding Spark expressions
 * to columns or to other values, evaluating them into locals, writing a result, and declaring
 * fields and methods of the generated class.
 *
 * The generated class keeps one field per column (`colK`, of its typed [[Column]] class), set
 * from the task's columns; their arrays are read through the accessors on every use, because
 * growing a column replaces them.
 */
final class GenContext(val ctx: CodegenContext, val layout: ColumnLayout) {

  def columnField(c: ColumnSpec): String = s"col${c.index}"
  def columnClass(c: ColumnSpec): String = Column.className(c.dataType)

  def isNull(c: ColumnSpec, row: String): String = s"${columnField(c)}.nulls()[$row]"

  /** The value of column c at `row`, as its Java type (object columns hold `Object`s). */
  def value(c: ColumnSpec, row: String): String = {
    val read = s"${columnField(c)}.values()[$row]"
    if (ColumnType.isPrimitive(c.dataType)) read else s"((${javaType(c.dataType)}) $read)"
  }

  /** Every column at `row`, as inputs for expressions bound to the layout's columns. */
  def columnVars(row: String): Seq[ExprCode] = layout.columns.map { c =>
    val isNullCode = if (c.nullable) JavaCode.isNullExpression(isNull(c, row)) else FalseLiteral
    ExprCode(isNullCode, JavaCode.expression(value(c, row), c.dataType))
  }

  def javaType(dataType: DataType): String = ColumnType.javaType(dataType)

  /** Writes `value` (a Java expression of `dataType`'s type) into `out` at `ordinal`. */
  def setResult(ordinal: Int, dataType: DataType, value: String): String =
    CodeGenerator.setColumn("out", dataType, ordinal, value) + ";"

  /** Writes `ev` into `out` at `ordinal`: the value, or null. */
  def writeResult(ordinal: Int, dataType: DataType, ev: ExprCode): String =
    s"""
       |if (${ev.isNull}) {
       |  out.setNullAt($ordinal);
       |} else {
       |  ${setResult(ordinal, dataType, ev.value.toString)}
       |}
     """.stripMargin

  def freshName(prefix: String): String = ctx.freshName(prefix)

  /** Code evaluating `exprs` (bound to `inputs` by ordinal) into fresh local variables. */
  def evaluateToLocals(exprs: Seq[Expression], inputs: Seq[ExprCode]): (String, Seq[ExprCode]) =
    GenContext.evaluateToLocals(ctx, exprs, inputs)

  /** Code evaluating `expr` (bound to `inputs`), as an [[ExprCode]] to read afterwards. */
  def evaluate(expr: Expression, inputs: Seq[ExprCode]): ExprCode =
    GenContext.withInputs(ctx, inputs)(expr.genCode(ctx))

  /** Declares a private method of the generated class and returns its name. */
  def method(prefix: String, returns: String, params: String, body: String): String = {
    val name = freshName(prefix)
    ctx.addNewFunction(name, s"private $returns $name($params) {\n$body\n}",
      inlineToOuterClass = true)
  }

  /** `new T[size]`, also when T is itself an array type such as `byte[]`. */
  def newArray(javaType: String, size: String): String =
    if (javaType.endsWith("[]")) s"new ${javaType.dropRight(2)}[$size][]"
    else s"new $javaType[$size]"
}

object GenContext {

  /**
   * Runs `generate` with expressions' BoundReferences resolved to `inputs` (by ordinal) instead
   * of fields of an input row.
   */
  def withInputs[T](ctx: CodegenContext, inputs: Seq[ExprCode])(generate: => T): T = {
    val savedRow = ctx.INPUT_ROW
    val savedVars = ctx.currentVars
    ctx.INPUT_ROW = null
    ctx.currentVars = inputs
    try generate
    finally {
      ctx.INPUT_ROW = savedRow
      ctx.currentVars = savedVars
    }
  }

  /** Code evaluating `exprs` (bound to `inputs` by ordinal) into fresh local variables. */
  def evaluateToLocals(ctx: CodegenContext, exprs: Seq[Expression],
      inputs: Seq[ExprCode]): (String, Seq[ExprCode]) = {
    val evals = withInputs(ctx, inputs)(ctx.generateExpressions(exprs))
    val locals = evals.zip(exprs).map { case (ev, e) =>
      val isNull = ctx.freshName("isNull")
      val value = ctx.freshName("value")
      (s"""
          |${ev.code}
          |boolean $isNull = ${ev.isNull};
          |${ColumnType.javaType(e.dataType)} $value = ${ev.value};
        """.stripMargin,
        ExprCode(JavaCode.isNullVariable(isNull), JavaCode.variable(value, e.dataType)))
    }
    (locals.map(_._1).mkString, locals.map(_._2))
  }
}
