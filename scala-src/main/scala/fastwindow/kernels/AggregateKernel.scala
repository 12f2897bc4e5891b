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
    /** Combines two partial buffers, the earlier rows' on the left (order matters for ties). */
    val merge: Seq[Expression] = BindReferences.bindReferences(
      agg.mergeExpressions, bufferAttributes ++ agg.inputAggBufferAttributes)
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

    private val sliding = spec.frame match {
      case f: FrameShape.SlidingRows => new InterpretedSliding(f, bound, view, buffer, () => init(EmptyRow), add)
      case _ => null
    }

    override def finishPartition(n: Int): Unit = {
      init(EmptyRow)
      if (spec.frame == FrameShape.WholePartition) {
        var j = 0
        while (j < n) { add(j); j += 1 }
        evaluate()
      }
      if (sliding != null) sliding.reset(n)
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
        case _: FrameShape.SlidingRows =>
          result = sliding.resultAt(i)
      }
      if (result == null) out.setNullAt(ordinal) else out.update(ordinal, result)
    }
  }

  /**
   * Row i's frame of a [[FrameShape.SlidingRows]] frame in a partition of n rows: `[first, last]`,
   * empty when first > last. Long arithmetic: offsets may be near Int.MaxValue.
   */
  def frameFirst(frame: FrameShape.SlidingRows, i: Int, n: Int): Int =
    frame.lower.fold(0)(o => math.max(0L, math.min(n.toLong, i.toLong + o)).toInt)
  def frameLast(frame: FrameShape.SlidingRows, i: Int, n: Int): Int =
    frame.upper.fold(n - 1)(o => math.max(-1L, math.min(n - 1L, i.toLong + o)).toInt)

  /**
   * Sliding frames by two stacks (the interpreted twin of the generated code in [[generate]]):
   * rows enter the frame on the "back" (one running buffer) and leave it from the "front", which
   * holds, for each row j still in it, the aggregate of rows j..frontLast. When the frame's first
   * row passes frontLast, the back's rows are moved to the front in one backward pass. Every row
   * is added once and moved once, so a partition costs O(n) updates and merges whatever the frame
   * size. Partial buffers are always merged earlier-rows-left, keeping Spark's tie behaviour.
   */
  private final class InterpretedSliding(
      frame: FrameShape.SlidingRows,
      bound: BoundAggregate,
      view: ColumnarRowView,
      back: SpecificInternalRow,
      resetBack: () => Unit,
      addToBack: Int => Unit) {
    private val types = bound.bufferAttributes.map(_.dataType)
    private val single = new SpecificInternalRow(types)
    private val initSingle = new InterpretedMutableProjection(bound.initial).target(single)
    private val updateSingle = new InterpretedMutableProjection(bound.update).target(single)
    private val singleInput = new JoinedRow(single, view)
    private val merged = new SpecificInternalRow(types)
    private val merge = new InterpretedMutableProjection(bound.merge).target(merged)
    private val pair = new JoinedRow
    private var front = new Array[InternalRow](0)
    private var n = 0
    private var first = 0
    private var end = 0
    private var frontLast = -1

    def reset(rows: Int): Unit = {
      n = rows
      if (front.length < n) front = new Array[InternalRow](n)
      first = 0
      end = 0
      frontLast = -1
      resetBack()
    }

    def resultAt(i: Int): Any = {
      val a = frameFirst(frame, i, n)
      val b = frameLast(frame, i, n)
      while (end <= b) { addToBack(end); end += 1 }
      if (a > first) {
        first = a
        if (first > frontLast) moveBackToFront()
      }
      if (a > b) {
        initSingle(EmptyRow)
        bound.evaluate.eval(single)
      } else if (first <= frontLast) {
        merge(pair(front(first), back))
        bound.evaluate.eval(merged)
      } else {
        bound.evaluate.eval(back)
      }
    }

    private def moveBackToFront(): Unit = {
      var later: InternalRow = null
      var j = end - 1
      while (j >= first) {
        initSingle(EmptyRow)
        view.row = j
        updateSingle(singleInput)
        val state = if (later == null) single.copy() else {
          merge(pair(single, later))
          merged.copy()
        }
        front(j) = state
        later = state
        j -= 1
      }
      frontLast = end - 1
      if (end < first) end = first
      resetBack()
    }
  }

  def generate(spec: AggregateSpec, bound: BoundAggregate, g: GenContext): KernelCode = {
    val ctx = g.ctx
    def bufferFields(prefix: String): Seq[ExprCode] = bound.bufferAttributes.map { a =>
      val isNull = g.field("boolean", s"$prefix${a.name}IsNull", "false")
      val value = g.field(ColumnType.javaType(a.dataType), s"$prefix${a.name}Value", "")
      ExprCode(JavaCode.isNullGlobal(isNull), JavaCode.global(value, a.dataType))
    }
    val bufferVars = bufferFields("")
    val resultIsNull = g.field("boolean", "resultIsNull", "true")
    val resultValue = g.field(ColumnType.javaType(spec.resultType), "resultValue", "")

    /** Code that evaluates `exprs` (bound to `inputs` by ordinal) into `target`. */
    def assign(exprs: Seq[Expression], inputs: Seq[ExprCode], target: Seq[ExprCode]): String = {
      val evals = g.withInputs(inputs)(ctx.generateExpressions(exprs))
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
        temps.zip(target).map { case ((_, isNull, value), buf) =>
          s"${buf.isNull} = $isNull;\n${buf.value} = $value;"
        }.mkString("\n")
    }

    /** Code that evaluates the aggregate's result from `buffer` into the result fields. */
    def evaluateFrom(buffer: Seq[ExprCode]): String = {
      val ev = g.withInputs(buffer)(bound.evaluate.genCode(ctx))
      s"""
         |${ev.code}
         |$resultIsNull = ${ev.isNull};
         |$resultValue = ${ev.value};
       """.stripMargin
    }

    val initFn = g.method("aggInit", "", assign(bound.initial, Nil, bufferVars))
    val addFn = g.method("aggAdd", "int j", assign(bound.update, bufferVars ++ g.columnVars("j"), bufferVars))
    val evalFn = g.method("aggEvaluate", "", evaluateFrom(bufferVars))

    val finish = spec.frame match {
      case FrameShape.WholePartition =>
        s"$initFn();\nfor (int j = 0; j < n; j++) $addFn(j);\n$evalFn();"
      case _ => s"$initFn();"
    }
    val (slidingFinish, advance) = spec.frame match {
      case FrameShape.WholePartition => ("", "")
      case FrameShape.RunningRows => ("", s"$addFn(i);\n$evalFn();")
      case FrameShape.RunningRange =>
        ("", s"""
           |if (i == ${g.peerStart}) {
           |  for (int j = ${g.peerStart}; j < ${g.peerEnd}; j++) $addFn(j);
           |  $evalFn();
           |}
         """.stripMargin)
      case f: FrameShape.SlidingRows =>
        generateSliding(f, bound, g, bufferVars, bufferFields, assign, evaluateFrom, initFn, addFn, evalFn)
    }
    KernelCode(
      finish + slidingFinish,
      s"""
         |$advance
         |if ($resultIsNull) {
         |  ${g.setNull(spec.ordinal)}
         |} else {
         |  ${g.setResult(spec.ordinal, spec.resultType, resultValue)}
         |}
       """.stripMargin)
  }

  /**
   * The generated twin of [[InterpretedSliding]]: the back is the kernel's running buffer, the
   * front one primitive array per buffer field (indexed by row), and a "single" buffer holds one
   * row's state while the back is moved to the front. Returns (finishPartition, per-row) code.
   */
  private def generateSliding(
      frame: FrameShape.SlidingRows,
      bound: BoundAggregate,
      g: GenContext,
      back: Seq[ExprCode],
      bufferFields: String => Seq[ExprCode],
      assign: (Seq[Expression], Seq[ExprCode], Seq[ExprCode]) => String,
      evaluateFrom: Seq[ExprCode] => String,
      initBack: String,
      addToBack: String,
      evaluateBack: String): (String, String) = {
    val single = bufferFields("single")
    val later = bufferFields("later")
    val types = bound.bufferAttributes.map(_.dataType)
    val frontArrays = types.map { t =>
      val javaType = ColumnType.javaType(t)
      (g.field(s"$javaType[]", "frontValues", ""), g.field("boolean[]", "frontNulls", ""), javaType)
    }
    def frontAt(row: String): Seq[ExprCode] = frontArrays.zip(types).map { case ((values, nulls, _), t) =>
      ExprCode(JavaCode.isNullExpression(s"$nulls[$row]"), JavaCode.expression(s"$values[$row]", t))
    }
    val first = g.intField("frameFirst")
    val end = g.intField("frameEnd")
    val frontLast = g.intField("frontLast")
    val mergedTemps = types.map(t => (g.freshName("mergedIsNull"), g.freshName("mergedValue"), t))
    val merged = mergedTemps.map { case (isNull, value, t) =>
      ExprCode(JavaCode.isNullVariable(isNull), JavaCode.variable(value, t))
    }

    val storeFront = frontArrays.zip(later).map { case ((values, nulls, _), buf) =>
      s"$nulls[j] = ${buf.isNull};\n$values[j] = ${buf.value};"
    }.mkString("\n")
    val moveBackToFront = g.method("moveBackToFront", "", s"""
      |for (int j = $end - 1; j >= $first; j--) {
      |  ${assign(bound.initial, Nil, single)}
      |  ${assign(bound.update, single ++ g.columnVars("j"), single)}
      |  if (j == $end - 1) {
      |    ${single.zip(later).map { case (s, l) => s"${l.isNull} = ${s.isNull};\n${l.value} = ${s.value};" }.mkString("\n")}
      |  } else {
      |    ${assign(bound.merge, single ++ later, later)}
      |  }
      |  $storeFront
      |}
      |$frontLast = $end - 1;
      |if ($end < $first) $end = $first;
      |$initBack();
    """.stripMargin)
    val evaluateFrontAndBack = g.method("evaluateFrontAndBack", "", {
      val mergeEvals = g.withInputs(frontAt(first) ++ back)(g.ctx.generateExpressions(bound.merge))
      mergeEvals.zip(mergedTemps).map { case (ev, (isNull, value, t)) =>
        s"""
           |${ev.code}
           |boolean $isNull = ${ev.isNull};
           |${ColumnType.javaType(t)} $value = ${ev.value};
         """.stripMargin
      }.mkString + evaluateFrom(merged)
    })
    val evaluateEmpty = g.method("evaluateEmpty", "",
      assign(bound.initial, Nil, single) + evaluateFrom(single))

    val lower = frame.lower.fold("0")(o => s"(int) Math.max(0L, Math.min((long) n, (long) i + ${o}L))")
    val upper = frame.upper.fold("n - 1")(o => s"(int) Math.max(-1L, Math.min(n - 1L, (long) i + ${o}L))")
    val grow = frontArrays.map { case (values, nulls, javaType) =>
      val alloc = if (javaType.endsWith("[]")) s"new ${javaType.dropRight(2)}[n][]" else s"new $javaType[n]"
      s"$values = $alloc;\n$nulls = new boolean[n];"
    }.mkString("\n")
    val finish = s"""
      |${frontArrays.headOption.map(a => s"if (${a._2} == null || ${a._2}.length < n) {\n$grow\n}").getOrElse("")}
      |$first = 0;
      |$end = 0;
      |$frontLast = -1;
    """.stripMargin
    val perRow = s"""
      |final int frameFirstOfRow = $lower;
      |final int frameLastOfRow = $upper;
      |while ($end <= frameLastOfRow) { $addToBack($end); $end++; }
      |if (frameFirstOfRow > $first) {
      |  $first = frameFirstOfRow;
      |  if ($first > $frontLast) $moveBackToFront();
      |}
      |if (frameFirstOfRow > frameLastOfRow) $evaluateEmpty();
      |else if ($first <= $frontLast) $evaluateFrontAndBack();
      |else $evaluateBack();
    """.stripMargin
    (finish, perRow)
  }
}
