package fastwindow.codegen

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression}
import org.apache.spark.sql.catalyst.expressions
  .codegen.{CodeAndComment, CodeFormatter, CodeGenerator, CodegenContext, CodegenFallback, ExprCode, FalseLiteral, JavaCode}
import org.apache.spark.sql.types.DataType

/**
 * Generates a [[GeneratedFold]]: the update expressions of aggregates inlined on fields that hold
 * their buffers, the row's columns read where the updates name them.
 */
object FoldCodegen {

  /**
   * The source of a [[GeneratedFold]] of `updates` (bound to `buffer ++ input`), with its
   * reference objects; None where buffers are not all primitive (their values would have to be
   * copied out of the rows) or an update has no generated code of its own.
   */
  def source(updates: Seq[Expression], buffer: Seq[Attribute],
      input: Seq[Attribute]): Option[(CodeAndComment, Array[Any])] = {
    val bound = updates.map(BindReferences.bindReference(_, buffer ++ input))
    val generable = buffer.forall(b => CodeGenerator.isPrimitiveType(b.dataType)) &&
      !bound.exists(_.exists(_.isInstanceOf[CodegenFallback]))
    if (!generable) None
    else {
      val ctx = new CodegenContext
      val types = buffer.map(_.dataType)
      def javaType(t: DataType) = CodeGenerator.javaType(t)
      val bufferVars = types.indices.map { k =>
        ExprCode(JavaCode.isNullVariable(s"accNull$k"), JavaCode.variable(s"acc$k", types(k)))
      }
      val rowVars = input.zipWithIndex.map { case (a, j) =>
        ExprCode(
          if (a.nullable) JavaCode.isNullExpression(s"row.isNullAt($j)") else FalseLiteral,
          JavaCode.expression(CodeGenerator.getValue("row", a.dataType, j.toString), a.dataType)
        )
      }
      val (evaluate, locals) = GenContext.evaluateToLocals(ctx, bound, bufferVars ++ rowVars)
      val fields = types.indices.map(k =>
        s"private boolean accNull$k;\nprivate ${javaType(types(k))} acc$k;").mkString("\n")
      val load = types.indices.map { k =>
        s"""accNull$k = state.isNullAt($k);
           |if (!accNull$k) acc$k = ${CodeGenerator.getValue("state", types(k), k.toString)};
         """.stripMargin
      }.mkString("\n")
      val store = types.indices.map { k =>
        s"""if (accNull$k) out.setNullAt($k);
           |else ${CodeGenerator.setColumn("out", types(k), k, s"acc$k")};
         """.stripMargin
      }.mkString("\n")
      val assign = locals.zipWithIndex.map { case (l, k) =>
        s"accNull$k = ${l.isNull};\nacc$k = ${l.value};"
      }.mkString("\n")
      val row = classOf[InternalRow].getName
      val body =
        s"""
           |public java.lang.Object generate(Object[] references) {
           |  return new SpecificFold(references);
           |}
           |
           |final class SpecificFold implements ${classOf[GeneratedFold].getName} {
           |  private Object[] references;
           |  $fields
           |  ${ctx.declareMutableStates()}
           |
           |  public SpecificFold(Object[] references) {
           |    this.references = references;
           |    ${ctx.initMutableStates()}
           |  }
           |
           |  public void load($row state) {
           |    $load
           |  }
           |
           |  public void update($row row) {
           |    $evaluate
           |    $assign
           |  }
           |
           |  public void store($row out) {
           |    $store
           |  }
           |
           |  ${ctx.declareAddedFunctions()}
           |}
         """.stripMargin
      Some((CodeFormatter.stripOverlappingComments(new CodeAndComment(
              CodeFormatter.stripExtraNewLines(body), ctx.getPlaceHolderToComments())),
          ctx.references.toArray))
    }
  }

  /** Compiles (or fetches from Spark's cache) `source` and creates one fold. */
  def instantiate(source: (CodeAndComment, Array[Any])): GeneratedFold = {
    val (clazz, _) = CodeGenerator.compile(source._1)
    clazz.generate(source._2).asInstanceOf[GeneratedFold]
  }
}
