package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, BindReferences, EmptyRow, Expression, InterpretedMutableProjection, JoinedRow, SpecificInternalRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.catalyst.expressions.codegen.{ExprCode, JavaCode}

import fastwindow.buffer.{Column, ColumnType, ColumnarRowView}
import fastwindow.codegen.GenContext
import fastwindow.planning.{AggregateSpec, FrameShape}

/**
 * A declarative aggregate (count, sum, avg, min, max, ...) over a whole-partition or running
 * frame, evaluated with the aggregate's own `initialValues`, `updateExpressions` and
 * `evaluateExpression`. Types, null handling, ANSI overflow errors and decimal rounding are
 * therefore exactly Spark's; what fastwindow changes is the loop around them: primitive
 * columns instead of rows, and (in generated code) the expressions inlined on primitive fields.
 *
 * Cost per partition, for n rows: whole partition O(n) (one pass, one evaluation); running ROWS
 * O(n) (one update and one evaluation per row); running RANGE O(n) (each peer group is added when
 * its first row is reached and evaluated once).
 */
object AggregateKernel {

  /** The aggregate's expressions bound to its buffer and to the partition columns. */
  final class BoundAggregate(agg: DeclarativeAggregate, columns: Seq[AttributeReference]) {
    val bufferAttributes: Seq[AttributeReference] = agg.aggBufferAttributes
    val initial: Seq[Expression] = agg.initialValues
    val update: Seq[Expression] =
      BindReferences.bindReferences(agg.updateExpressions, bufferAttributes ++ columns)
    val evaluate: Expression = BindReferences.bindReference(agg.evaluateExpression, bufferAttributes)
  }

  final class Interpreted(
      spec: AggregateSpec,
      bound: BoundAggregate,
      columns: Array[Column],
      peers: PeerGroups) extends Kernel {

    private val ordinal = spec.ordinal
    private val buffer = new SpecificInternalRow(bound.bufferAttributes.map(_.dataType))
    private val init = new InterpretedMutableProjection(bound.initial).target(buffer)
    private val update = new InterpretedMutableProjection(bound.update).target(buffer)
    private val view = new ColumnarRowView(columns)
    private val input = new JoinedRow(buffer, view)
    private var result: Any = null

    private def add(row: Int): Unit = {
      view.row = row
      update(input)
    }

    private def evaluate(): Unit = result = bound.evaluate.eval(buffer)

    override def finishPartition(n: Int): Unit = {
      init(EmptyRow)
      if (spec.frame == FrameShape.WholePartition) {
        var j = 0
        while (j < n) { add(j); j += 1 }
        evaluate()
      }
    }

    override def write(i: Int, out: InternalRow): Unit = {
      spec.frame match {
        case FrameShape.WholePartition =>
        case FrameShape.RunningRows =>
          add(i)
          evaluate()
        case FrameShape.RunningRange =>
          if (i == peers.start) {
            var j = peers.start
            while (j < peers.end) { add(j); j += 1 }
            evaluate()
          }
      }
      if (result == null) out.setNullAt(ordinal) else out.update(ordinal, result)
    }
  }

  def generate(spec: AggregateSpec, bound: BoundAggregate, g: GenContext): KernelCode = {
    val ctx = g.ctx
    val bufferVars = bound.bufferAttributes.map { a =>
      val isNull = g.field("boolean", s"${a.name}IsNull", "false")
      val value = g.field(ColumnType.javaType(a.dataType), s"${a.name}Value", "")
      ExprCode(JavaCode.isNullGlobal(isNull), JavaCode.global(value, a.dataType))
    }
    val resultIsNull = g.field("boolean", "resultIsNull", "true")
    val resultValue = g.field(ColumnType.javaType(spec.resultType), "resultValue", "")

    /** Code that evaluates `exprs` (bound to buffer ++ columns at `row`) and stores them. */
    def assignBuffer(exprs: Seq[Expression], row: String): String = {
      val evals = g.withInputs(bufferVars ++ g.columnVars(row)) {
        ctx.generateExpressions(exprs)
      }
      // Evaluate every new value before assigning any: update expressions read the old buffer.
      val temps = evals.zip(bound.bufferAttributes).map { case (ev, a) =>
        val isNull = g.freshName("newIsNull")
        val value = g.freshName("newValue")
        (s"""
            |${ev.code}
            |boolean $isNull = ${ev.isNull};
            |${ColumnType.javaType(a.dataType)} $value = ${ev.value};
          """.stripMargin, isNull, value)
      }
      temps.map(_._1).mkString +
        temps.zip(bufferVars).map { case ((_, isNull, value), buf) =>
          s"${buf.isNull} = $isNull;\n${buf.value} = $value;"
        }.mkString("\n")
    }

    val initFn = g.method("aggInit", "", assignBuffer(bound.initial, "0"))
    val addFn = g.method("aggAdd", "int j", assignBuffer(bound.update, "j"))
    val evalFn = g.method("aggEvaluate", "", {
      val ev = g.withInputs(bufferVars)(bound.evaluate.genCode(ctx))
      s"""
         |${ev.code}
         |$resultIsNull = ${ev.isNull};
         |$resultValue = ${ev.value};
       """.stripMargin
    })

    val finish = spec.frame match {
      case FrameShape.WholePartition =>
        s"$initFn();\nfor (int j = 0; j < n; j++) $addFn(j);\n$evalFn();"
      case _ => s"$initFn();"
    }
    val advance = spec.frame match {
      case FrameShape.WholePartition => ""
      case FrameShape.RunningRows => s"$addFn(i);\n$evalFn();"
      case FrameShape.RunningRange =>
        s"""
           |if (i == ${g.peerStart}) {
           |  for (int j = ${g.peerStart}; j < ${g.peerEnd}; j++) $addFn(j);
           |  $evalFn();
           |}
         """.stripMargin
    }
    KernelCode(
      finish,
      s"""
         |$advance
         |if ($resultIsNull) {
         |  ${g.setNull(spec.ordinal)}
         |} else {
         |  ${g.setResult(spec.ordinal, spec.resultType, resultValue)}
         |}
       """.stripMargin)
  }

}
