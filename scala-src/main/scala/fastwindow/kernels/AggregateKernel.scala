package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AggregateWindowFunction, AttributeReference, BindReferences, EmptyRow, Expression, InterpretedMutableProjection, JoinedRow, NthValue, SpecificInternalRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.catalyst.expressions.codegen.{ExprCode, JavaCode}
import org.apache.spark.sql.types.DataType

import fastwindow.buffer.{Column, ColumnType, ColumnarRowView}
import fastwindow.codegen.GenContext
import fastwindow.exec.ColumnSpec
import fastwindow.planning.{AggregateSpec, FrameShape}

/**
 * A declarative aggregate (count, sum, avg, min, max, ...) over a frame, evaluated with the
 * aggregate's own `initialValues`, `updateExpressions` and `evaluateExpression`. Types, null
 * handling, ANSI overflow errors and decimal rounding are therefore exactly Spark's; what
 * fastwindow changes is the loop around them: primitive columns instead of rows, and (in
 * generated code) the expressions inlined on primitive fields.
 *
 * Cost per partition, for n rows: whole partition O(n) (updated as rows arrive, evaluated once,
 * so the rows need not stay buffered); running ROWS
 * O(n) (one update and one evaluation per row); running RANGE O(n) (each peer group is added when
 * its first row is reached and evaluated once); sliding ROWS and RANGE frames O(n) whatever their
 * width ([[SlidingAggregate]]).
 */
object AggregateKernel {

  /**
   * An aggregation as bound expressions: `update` reads the buffer then the partition columns,
   * `merge` a left (earlier rows) then a right buffer, `evaluate` the buffer.
   */
  final case class BoundAggregate(
      bufferAttributes: Seq[AttributeReference],
      initial: Seq[Expression],
      update: Seq[Expression],
      merge: Seq[Expression],
      evaluate: Expression) {
    def bufferTypes: Seq[DataType] = bufferAttributes.map(_.dataType)
  }

  object BoundAggregate {
    /** `aggs` side by side in one buffer (evaluating the first); used for composite partials. */
    def of(aggs: Seq[DeclarativeAggregate], columns: Seq[AttributeReference]): BoundAggregate = {
      val buffer = aggs.flatMap(_.aggBufferAttributes)
      BoundAggregate(
        buffer,
        aggs.flatMap(_.initialValues),
        BindReferences.bindReferences(aggs.flatMap(_.updateExpressions), buffer ++ columns),
        // Window aggregates (nth_value) are update-only: no merge. Over sliding frames, the only
        // user of `merge`, nth_value is found by position instead (SlidingNthValue).
        if (aggs.exists(_.isInstanceOf[AggregateWindowFunction])) Nil
        else BindReferences.bindReferences(
          aggs.flatMap(_.mergeExpressions), buffer ++ aggs.flatMap(_.inputAggBufferAttributes)),
        BindReferences.bindReference(aggs.head.evaluateExpression, buffer))
    }

    def apply(agg: DeclarativeAggregate, columns: Seq[AttributeReference]): BoundAggregate =
      of(Seq(agg), columns)
  }

  /**
   * @param agg               the aggregate reading `columnAttributes` (see EvaluatorLayout)
   * @param columnAttributes  stand for the partition's columns, `columns`
   */
  final class Interpreted(
      spec: AggregateSpec,
      agg: DeclarativeAggregate,
      columnAttributes: Seq[AttributeReference],
      columns: Array[Column],
      rangeKey: Option[Column],
      cursor: PartitionCursor) extends Kernel {

    private val bound = BoundAggregate(agg, columnAttributes)
    private val ordinal = spec.ordinal
    private val buffer = new SpecificInternalRow(bound.bufferTypes)
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

    /** Spark's own row-by-row aggregation of rows first..last (for sliding frames' checks). */
    private def aggregateRows(first: Int, last: Int): Any = {
      init(EmptyRow)
      var j = first
      while (j <= last) { add(j); j += 1 }
      bound.evaluate.eval(buffer)
    }

    private val sliding: SlidingFrame = (spec.frame match {
      case f: FrameShape.SlidingRows => Some(new RowsLocator(f, cursor))
      case f: FrameShape.SlidingRange => Some(new RangeLocator(f, rangeKey, cursor))
      case _ => None
    }).map[SlidingFrame] { locator =>
      agg match {
        case nth: NthValue =>
          // The input is a column, or a constant (which no column holds).
          val input = BindReferences.bindReference(nth.input, columnAttributes)
          new SlidingNthValue.Interpreted(locator, nth, row => { view.row = row; input.eval(view) })
        case _ =>
          new SlidingAggregate.Interpreted(
            locator, SlidingAggregate.plan(agg, columnAttributes), view, aggregateRows)
      }
    }.orNull

    override def startPartition(): Unit = {
      init(EmptyRow)
      if (sliding != null) sliding.reset()
    }

    // The whole partition's aggregate is updated as rows arrive, so its rows need not stay.
    override def ingested(r: Int): Unit = if (spec.frame == FrameShape.WholePartition) add(r)

    override def finishPartition(n: Int): Unit =
      if (spec.frame == FrameShape.WholePartition) evaluate()

    override def write(i: Int, n: Int, out: InternalRow): Unit = {
      spec.frame match {
        case FrameShape.WholePartition =>
        case FrameShape.RunningRows =>
          add(i)
          evaluate()
        case FrameShape.RunningRange =>
          if (i == cursor.start) {
            var j = cursor.start
            while (j < cursor.end) { add(j); j += 1 }
            evaluate()
          }
        case _: FrameShape.SlidingRows | _: FrameShape.SlidingRange =>
          result = sliding.resultAt(i, n)
      }
      if (result == null) out.setNullAt(ordinal) else out.update(ordinal, result)
    }

    override def shift(d: Int): Unit = if (sliding != null) sliding.shift(d)
    override def stateBytes: Long = if (sliding != null) sliding.stateBytes else 0L
    override def stateBytesPerRow: Long = if (sliding != null) sliding.stateBytesPerRow else 0L
  }

  /**
   * Java helpers for one aggregate kernel: buffer fields, assigning expressions to them, and
   * evaluating a result into the kernel's result fields.
   */
  final class Gen(val g: GenContext, resultType: DataType) {
    val resultIsNull: String = g.field("boolean", "resultIsNull", "true")
    val resultValue: String = g.field(ColumnType.javaType(resultType), "resultValue", "")

    /** One field pair per buffer attribute, named after it. */
    def bufferFields(prefix: String, bound: BoundAggregate): Seq[ExprCode] =
      bound.bufferAttributes.map { a =>
        val isNull = g.field("boolean", s"$prefix${a.name}IsNull", "false")
        val value = g.field(ColumnType.javaType(a.dataType), s"$prefix${a.name}Value", "")
        ExprCode(JavaCode.isNullGlobal(isNull), JavaCode.global(value, a.dataType))
      }

    /** Code evaluating `exprs` (bound to `inputs` by ordinal) into local variables. */
    def evaluateToLocals(exprs: Seq[Expression], inputs: Seq[ExprCode]): (String, Seq[ExprCode]) = {
      val evals = g.withInputs(inputs)(g.ctx.generateExpressions(exprs))
      val locals = evals.zip(exprs).map { case (ev, e) =>
        val isNull = g.freshName("isNull")
        val value = g.freshName("value")
        (s"""
            |${ev.code}
            |boolean $isNull = ${ev.isNull};
            |${ColumnType.javaType(e.dataType)} $value = ${ev.value};
          """.stripMargin,
          ExprCode(JavaCode.isNullVariable(isNull), JavaCode.variable(value, e.dataType)))
      }
      (locals.map(_._1).mkString, locals.map(_._2))
    }

    /** Code assigning `exprs` to `target`; all are evaluated first, as updates read the old buffer. */
    def assign(exprs: Seq[Expression], inputs: Seq[ExprCode], target: Seq[ExprCode]): String = {
      val (code, values) = evaluateToLocals(exprs, inputs)
      code + copy(values, target)
    }

    def copy(from: Seq[ExprCode], to: Seq[ExprCode]): String =
      from.zip(to).map { case (f, t) => s"${t.isNull} = ${f.isNull};\n${t.value} = ${f.value};" }
        .mkString("\n")

    /** Code evaluating `expr` on `buffer` into the result fields. */
    def evaluate(expr: Expression, buffer: Seq[ExprCode]): String = {
      val ev = g.withInputs(buffer)(expr.genCode(g.ctx))
      s"""
         |${ev.code}
         |$resultIsNull = ${ev.isNull};
         |$resultValue = ${ev.value};
       """.stripMargin
    }
  }

  def generate(
      spec: AggregateSpec,
      agg: DeclarativeAggregate,
      columnAttributes: Seq[AttributeReference],
      rangeKey: Option[ColumnSpec],
      g: GenContext): KernelCode = {
    val bound = BoundAggregate(agg, columnAttributes)
    val gen = new Gen(g, spec.resultType)
    val buffer = gen.bufferFields("", bound)
    val initFn = g.method("aggInit", "", gen.assign(bound.initial, Nil, buffer))
    val addFn = g.method("aggAdd", "int j", gen.assign(bound.update, buffer ++ g.columnVars("j"), buffer))
    val evalFn = g.method("aggEvaluate", "", gen.evaluate(bound.evaluate, buffer))

    val start = s"$initFn();"
    def sliding(locator: FrameLocatorCode): KernelCode = agg match {
      case nth: NthValue => SlidingNthValue.generate(locator, nth, columnAttributes, gen)
      case _ =>
        val aggregateRows = g.method("aggregateRows", "int first, int last",
          s"$initFn();\nfor (int j = first; j <= last; j++) $addFn(j);\n$evalFn();")
        SlidingAggregate.generate(
          locator, SlidingAggregate.plan(agg, columnAttributes), gen, aggregateRows)
    }
    val kernel = spec.frame match {
      case FrameShape.WholePartition =>
        KernelCode(s"$evalFn();", "", start, ingested = s"$addFn(r);")
      case FrameShape.RunningRows => KernelCode("", s"$addFn(i);\n$evalFn();", start)
      case FrameShape.RunningRange =>
        KernelCode("", s"""
           |if (i == ${g.peerStart}) {
           |  for (int j = ${g.peerStart}; j < ${g.peerEnd}; j++) $addFn(j);
           |  $evalFn();
           |}
         """.stripMargin, start)
      case f: FrameShape.SlidingRows => sliding(RowsLocator.generate(f, g))
      case f: FrameShape.SlidingRange => sliding(RangeLocator.generate(f, rangeKey, g))
    }
    kernel.copy(write =
      s"""
         |${kernel.write}
         |if (${gen.resultIsNull}) {
         |  ${g.setNull(spec.ordinal)}
         |} else {
         |  ${g.setResult(spec.ordinal, spec.resultType, gen.resultValue)}
         |}
       """.stripMargin)
  }
}
