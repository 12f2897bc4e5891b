package fastwindow.codegen

import org.apache.spark.sql.catalyst.expressions
  .codegen.{CodeAndComment, CodeFormatter, CodeGenerator, CodegenContext}

import fastwindow.columns.Column
import fastwindow.ops.{AggregateOps, FunctionOps, OpsPlan, OpsSet, RangeEdgeOps, ValueOps}

/**
 * Generates, for one operator, one Java class holding everything in it that depends on the
 * query's expressions and types: column extraction, peer comparison, RANGE edges, value copies
 * and every aggregate's buffer operations (inner classes, see [[RowCodegen]] and
 * [[AggregateCodegen]]). Frame algorithms are not generated: they are written once in Scala and
 * call these classes, exactly as they call the interpreted twins.
 *
 * The source is generated on the driver and shipped with the plan ([[GeneratedSource]]);
 * executors compile it with Spark's `CodeGenerator.compile`, which caches classes by source, so
 * each distinct operator is compiled once per JVM.
 */
object OpsCodegen {

  /** Source and reference objects of generated ops (serializable, built on the driver). */
  final case class GeneratedSource(code: CodeAndComment, references: Array[Any]) {

    /**
     * Compiles (or fetches from Spark's cache) the class and creates one task's ops; returns them
     * with the compiled class, which stands for this operator (one per distinct source and JVM).
     */
    def instantiate(columns: Array[Column]): (AnyRef, OpsSet) = {
      val (clazz, _) = CodeGenerator.compile(code)
      (clazz, clazz.generate(references).asInstanceOf[GeneratedOps].create(columns))
    }
  }

  /**
   * The operator's functions and frames, written into the source as a comment. Spark caches
   * compiled classes by source, so this makes each distinct operator its own class, and so gives
   * it its own copy of the frame algorithms (`fastwindow.exec.window.AlgorithmIsolation`): two operators
   * whose ops are alike (a running and a moving sum of the same column) would otherwise share one
   * copy, and its call sites would see both operators' kernels.
   */
  private def operatorName(plan: OpsPlan): String =
    plan.layout.plan.functions.map(_.describe).mkString("; ").map {
      case '\n' | '\r' | '\\' => ' '
      case c => c
    }

  def generate(plan: OpsPlan): GeneratedSource = {
    val ctx = new CodegenContext
    val g = new GenContext(ctx, plan.layout)
    val columns = plan.layout.columns

    val inner = Seq(
      RowCodegen.extractor("Extractor", g),
      RowCodegen.peerKeys("Peers", g)) ++
      plan.functions.zipWithIndex.flatMap { case (f, k) =>
        f.aggregates.zipWithIndex.map { case (a, j) =>
          AggregateCodegen.innerClass(s"Agg${k}_$j", a, g)
        } ++
          f.values.zipWithIndex.map { case (v, j) => RowCodegen.value(s"Value${k}_$j", v, g) } ++
          f.rangeEdges.zipWithIndex.map { case (e, j) =>
            RowCodegen.rangeEdge(s"Edge${k}_$j", e, g)
          }
      }
    def array(cls: Class[_], names: Seq[String]): String =
      s"new ${cls.getName}[] {${names.map(n => s"new $n()").mkString(", ")}}"
    val functionOps = plan.functions.zipWithIndex.map { case (f, k) =>
      s"""${classOf[FunctionOps].getName}.of(
         |  ${array(classOf[AggregateOps], f.aggregates.indices.map(j => s"Agg${k}_$j"))},
         |  ${array(classOf[ValueOps], f.values.indices.map(j => s"Value${k}_$j"))},
         |  ${array(classOf[RangeEdgeOps], f.rangeEdges.indices.map(j => s"Edge${k}_$j"))})""".stripMargin
    }
    val body =
      s"""
         |public java.lang.Object generate(Object[] references) {
         |  return new SpecificOps(references);
         |}
         |
         |// The ops of the window functions: ${operatorName(plan)}
         |final class SpecificOps extends ${classOf[GeneratedOps].getName} {
         |  private Object[] references;
         |  ${columns.map(c => s"private ${g.columnClass(c)} ${g.columnField(c)};").mkString("\n")}
         |  ${ctx.declareMutableStates()}
         |
         |  public SpecificOps(Object[] references) {
         |    this.references = references;
         |    ${ctx.initMutableStates()}
         |  }
         |
         |  public ${classOf[OpsSet].getName} create(${classOf[Column].getName}[] columns) {
         |    ${columns.map(c =>
          s"${g.columnField(c)} = (${g.columnClass(c)}) columns[${c.index}];").mkString("\n")}
         |    return new ${classOf[OpsSet].getName}(new Extractor(), new Peers(),
         |      ${classOf[FunctionOps].getName}.indexed(new ${classOf[FunctionOps].getName}[] {
         |        ${functionOps.mkString(",\n")}}));
         |  }
         |
         |  ${inner.mkString("\n")}
         |
         |  ${ctx.declareAddedFunctions()}
         |}
       """.stripMargin

    val code = CodeFormatter.stripOverlappingComments(
      new CodeAndComment(CodeFormatter.stripExtraNewLines(body), ctx.getPlaceHolderToComments()))
    GeneratedSource(code, ctx.references.toArray)
  }
}
