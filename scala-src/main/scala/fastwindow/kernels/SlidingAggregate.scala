package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Abs, AttributeReference, BindReferences, Cast, Coalesce, EmptyRow, EvalMode, Expression, GreaterThanOrEqual, InterpretedMutableProjection, JoinedRow, Literal, NumericEvalContext, SpecificInternalRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.{Average, CentralMomentAgg, DeclarativeAggregate, Sum}
import org.apache.spark.sql.catalyst.expressions.codegen.{ExprCode, JavaCode}
import org.apache.spark.sql.types.{DataType, DecimalType, DoubleType, LongType}

import fastwindow.buffer.{ColumnType, ColumnarRowView}
import fastwindow.kernels.AggregateKernel.{BoundAggregate, Gen}
import fastwindow.planning.{FilteredAggregate, FrameShape}

/** The interpreted evaluation of one function over a sliding frame (see [[FrameLocator]]). */
trait SlidingFrame {
  def reset(): Unit
  def resultAt(i: Int, n: Int): Any
  /** Forgets the first `d` buffered rows (streaming). */
  def shift(d: Int): Unit
  /** Bytes of state that grow with the frame or partition. */
  def stateBytes: Long
  /** Bytes of that state per buffered row it covers. */
  def stateBytesPerRow: Long
}

/**
 * Aggregates over sliding frames (ROWS: [[FrameShape.SlidingRows]], moving, shrinking, offset and
 * partly unbounded; RANGE: [[FrameShape.SlidingRange]]) in O(n) per partition, whatever the
 * frame's width, by two stacks. A [[FrameLocator]] gives each row's frame; both its edges only
 * move forward.
 *
 * Rows enter the frame on the "back" (one running buffer) and leave it from the "front", which
 * holds, for each row j still in it, the partial aggregate of rows j..frontLast. When the frame's
 * first row passes frontLast, the back's rows move to the front in one backward pass. Every row is
 * added once and moved once; each result is one merge of front and back. Partial buffers are
 * always merged with the earlier rows on the left, so ties (min/max of -0.0 and 0.0) resolve as in
 * Spark's row-by-row loop. The front is one slot per buffered row; when a streaming evaluator
 * drops rows before the frame, `shift` moves the stacks' positions and slots with them.
 *
 * Exactness: combining partial aggregates in another order than Spark is exact for count, min,
 * max and wrapping integral sums, and within float rounding for float sums. Where the order
 * decides overflow (integral sums under ANSI/TRY, decimal sums and averages), the stacks combine
 * a non-failing (LEGACY) copy of the aggregate next to a sum of |x| as double; a frame whose |x|
 * sum comes near the type's limit is recomputed row by row with Spark's own expressions, so
 * errors and nulls from overflow appear exactly where Spark produces them. Variance and standard
 * deviation merge partial moments (Chan et al.) where Spark updates row by row (Welford): within
 * float rounding (the tests allow 1e-12 times the frame's sum of x^2 over n - 1 on the variance),
 * and frames with a non-finite value or a sum of |x| from 1e100 up are recomputed row by row.
 */
object SlidingAggregate {

  /**
   * @param partial    what the stacks combine (evaluating it gives the frame's result)
   * @param needsExact on the partial buffer: true when the frame must be recomputed row by row
   */
  final case class Plan(partial: BoundAggregate, needsExact: Option[Expression])

  def plan(agg: DeclarativeAggregate, columns: Seq[AttributeReference]): Plan = agg match {
    // FILTER only decides which rows update the buffer: the guard is the aggregate's own, and
    // the unfiltered sum of |x| bounds the filtered one.
    case FilteredAggregate(inner, filter) =>
      guard(inner).fold(Plan(BoundAggregate(agg, columns), None)) { case (partial, input, safe) =>
        checked(FilteredAggregate(partial, filter), input, safe, columns)
      }
    case other =>
      guard(other).fold(Plan(BoundAggregate(other, columns), None)) { case (partial, input, safe) =>
        checked(partial, input, safe, columns)
      }
  }

  /** Whether some frames of `agg` are recomputed row by row (see above). */
  def recomputesNearLimits(agg: DeclarativeAggregate): Boolean = agg match {
    case FilteredAggregate(inner, _) => guard(inner).isDefined
    case other => guard(other).isDefined
  }

  /**
   * For aggregates whose partials may not be combined in any order everywhere: what the stacks
   * combine instead (a non-failing copy), the input whose sum of |x| is watched, and the sum of
   * |x| from which a frame is recomputed row by row.
   */
  private def guard(agg: DeclarativeAggregate): Option[(DeclarativeAggregate, Expression, Double)] =
    agg match {
      case s: Sum if s.dataType.isInstanceOf[DecimalType] ||
          (s.dataType == LongType && s.evalContext.evalMode != EvalMode.LEGACY) =>
        Some((s.copy(evalContext = s.evalContext.copy(evalMode = EvalMode.LEGACY)), s.child,
          safeMagnitude(s.dataType)))
      case a: Average if a.child.dataType.isInstanceOf[DecimalType] =>
        Some((a.copy(evalMode = EvalMode.LEGACY), a.child, safeMagnitude(a.sumDataType)))
      case c: CentralMomentAgg => Some((c, c.child, MomentSafeMagnitude))
      case _ => None
    }

  /**
   * Half of the largest magnitude a sum buffer of `sumType` holds: below it (as a sum of |x|),
   * no partial sum of the frame can overflow in any order. Halved to absorb the double rounding
   * of the |x| sum.
   */
  private def safeMagnitude(sumType: DataType): Double = sumType match {
    case d: DecimalType => math.pow(10, d.precision - d.scale) / 2
    case _ => math.pow(2, 62)
  }

  /**
   * Variance and standard deviation (Welford's updates row by row, Chan et al.'s merge of
   * partials) agree within float rounding while no intermediate overflows; below this sum of
   * |x| none does (squares and products of counts stay far below Double.MaxValue). A frame with
   * a larger, infinite or NaN value is recomputed row by row, so NaN and infinity appear exactly
   * where Spark's row-by-row updates produce them.
   */
  private val MomentSafeMagnitude = 1e100

  private def checked(
      partialAgg: DeclarativeAggregate,
      input: Expression,
      safe: Double,
      columns: Seq[AttributeReference]): Plan = {
    val magnitude = Sum(Abs(Cast(input, DoubleType)), NumericEvalContext(EvalMode.LEGACY))
    val partial = BoundAggregate.of(Seq(partialAgg, magnitude), columns)
    val nearLimit = GreaterThanOrEqual(
      Coalesce(Seq(magnitude.evaluateExpression, Literal(0.0))), Literal(safe))
    Plan(partial, Some(BindReferences.bindReference(nearLimit, partial.bufferAttributes)))
  }

  /**
   * Buffered row i's frame, while n rows are buffered from partition position `base` on, is
   * buffered rows `[first, last]`, empty when first > last; the partition start is at `-base`.
   * Long arithmetic: offsets may be near Int.MaxValue.
   */
  def frameFirst(frame: FrameShape.SlidingRows, i: Int, n: Int, base: Int): Int =
    frame.lower.fold(-base)(o => math.max(-base.toLong, math.min(n.toLong, i.toLong + o)).toInt)
  def frameLast(frame: FrameShape.SlidingRows, i: Int, n: Int, base: Int): Int =
    frame.upper.fold(n - 1)(o => math.max(-1L - base, math.min(n - 1L, i.toLong + o)).toInt)

  /**
   * The interpreted twin. `aggregateRows(first, last)` is Spark's row-by-row aggregation with
   * the original expressions (the kernel's own buffer).
   */
  final class Interpreted(
      frame: FrameLocator,
      plan: Plan,
      view: ColumnarRowView,
      aggregateRows: (Int, Int) => Any) extends SlidingFrame {
    private val partial = plan.partial
    private val back = new SpecificInternalRow(partial.bufferTypes)
    private val initBack = new InterpretedMutableProjection(partial.initial).target(back)
    private val updateBack = new InterpretedMutableProjection(partial.update).target(back)
    private val backInput = new JoinedRow(back, view)
    private val single = new SpecificInternalRow(partial.bufferTypes)
    private val initSingle = new InterpretedMutableProjection(partial.initial).target(single)
    private val updateSingle = new InterpretedMutableProjection(partial.update).target(single)
    private val singleInput = new JoinedRow(single, view)
    private val merged = new SpecificInternalRow(partial.bufferTypes)
    private val merge = new InterpretedMutableProjection(partial.merge).target(merged)
    private val pair = new JoinedRow
    private var front = new Array[InternalRow](16)
    private var first = 0
    private var end = 0
    private var frontLast = -1

    def reset(): Unit = {
      java.util.Arrays.fill(front.asInstanceOf[Array[AnyRef]], null)
      first = 0
      end = 0
      frontLast = -1
      initBack(EmptyRow)
      frame.reset()
    }

    def resultAt(i: Int, n: Int): Any = {
      frame.locate(i, n)
      val a = frame.first
      val b = frame.last
      while (end <= b) {
        view.row = end
        updateBack(backInput)
        end += 1
      }
      if (a > first) {
        first = a
        if (first > frontLast) moveBackToFront()
      }
      val buffer: InternalRow =
        if (a > b) { initSingle(EmptyRow); single }
        else if (first <= frontLast) merge(pair(front(first), back))
        else back
      if (a <= b && plan.needsExact.exists(_.eval(buffer) == true)) aggregateRows(a, b)
      else partial.evaluate.eval(buffer)
    }

    private def moveBackToFront(): Unit = {
      if (front.length < end) front = java.util.Arrays.copyOf(front, math.max(end, front.length * 2))
      var later: InternalRow = null
      var j = end - 1
      while (j >= first) {
        initSingle(EmptyRow)
        view.row = j
        updateSingle(singleInput)
        later = if (later == null) single.copy() else merge(pair(single, later)).copy()
        front(j) = later
        j -= 1
      }
      frontLast = end - 1
      if (end < first) end = first
      initBack(EmptyRow)
    }

    /** Each front slot: a reference and a row of the partial buffer (an estimate). */
    def stateBytesPerRow: Long = 8L + 16L + 16L * partial.bufferTypes.size
    def stateBytes: Long = front.length * stateBytesPerRow

    def shift(d: Int): Unit = {
      frame.shift(d)
      val kept = frontLast + 1 - d
      if (kept > 0) System.arraycopy(front, d, front, 0, kept)
      first -= d
      end -= d
      frontLast -= d
    }
  }

  /**
   * The generated twin: the front is one primitive array per buffer field, indexed by row.
   * `aggregateRows` names a generated method `(int first, int last)` that aggregates row by row
   * with the original expressions into the result fields.
   */
  def generate(
      frame: FrameLocatorCode,
      plan: Plan,
      gen: Gen,
      aggregateRows: String): KernelCode = {
    val g = gen.g
    val partial = plan.partial
    val types = partial.bufferTypes
    val back = gen.bufferFields("back", partial)
    val single = gen.bufferFields("single", partial)
    val later = gen.bufferFields("later", partial)
    val front = types.map { t =>
      val javaType = ColumnType.javaType(t)
      (g.field(s"$javaType[]", "frontValues", ""), g.field("boolean[]", "frontNulls", ""), javaType)
    }
    def frontAt(row: String): Seq[ExprCode] = front.zip(types).map { case ((values, nulls, _), t) =>
      ExprCode(JavaCode.isNullExpression(s"$nulls[$row]"), JavaCode.expression(s"$values[$row]", t))
    }
    val first = g.intField("frameFirst")
    val end = g.intField("frameEnd")
    val frontLast = g.intField("frontLast")

    val initBack = g.method("backInit", "", gen.assign(partial.initial, Nil, back))
    val addToBack = g.method("backAdd", "int j",
      gen.assign(partial.update, back ++ g.columnVars("j"), back))
    val storeFront = front.zip(later).map { case ((values, nulls, _), buf) =>
      s"$nulls[j] = ${buf.isNull};\n$values[j] = ${buf.value};"
    }.mkString("\n")
    val firstFrontNulls = front.head._2  // every front array has the same length
    val growFront = front.map { case (values, nulls, javaType) =>
      s"$values = ($javaType[]) java.util.Arrays.copyOf($values, size);\n" +
        s"$nulls = java.util.Arrays.copyOf($nulls, size);"
    }.mkString("\n")
    val moveBackToFront = g.method("moveBackToFront", "", s"""
      |if ($firstFrontNulls.length < $end) {
      |  final int size = Math.max($end, $firstFrontNulls.length * 2);
      |  $growFront
      |}
      |for (int j = $end - 1; j >= $first; j--) {
      |  ${gen.assign(partial.initial, Nil, single)}
      |  ${gen.assign(partial.update, single ++ g.columnVars("j"), single)}
      |  if (j == $end - 1) {
      |    ${gen.copy(single, later)}
      |  } else {
      |    ${gen.assign(partial.merge, single ++ later, later)}
      |  }
      |  $storeFront
      |}
      |$frontLast = $end - 1;
      |if ($end < $first) $end = $first;
      |$initBack();
    """.stripMargin)

    /** Evaluates the frame [a, b] from `buffer`, or row by row when it needs the exact path. */
    def evaluate(buffer: Seq[ExprCode]): String = plan.needsExact match {
      case None => gen.evaluate(partial.evaluate, buffer)
      case Some(needsExact) =>
        val check = g.withInputs(buffer)(needsExact.genCode(g.ctx))
        s"""
           |${check.code}
           |if (!${check.isNull} && ${check.value}) {
           |  $aggregateRows(a, b);
           |} else {
           |  ${gen.evaluate(partial.evaluate, buffer)}
           |}
         """.stripMargin
    }
    val evaluateFrontAndBack = g.method("evaluateFrontAndBack", "int a, int b", {
      val (mergeCode, merged) = gen.evaluateToLocals(partial.merge, frontAt(first) ++ back)
      mergeCode + evaluate(merged)
    })
    val evaluateBack = g.method("evaluateBack", "int a, int b", evaluate(back))
    val evaluateEmpty = g.method("evaluateEmpty", "",
      gen.assign(partial.initial, Nil, single) + gen.evaluate(partial.evaluate, single))

    val allocateFront = front.map { case (values, nulls, javaType) =>
      val alloc = if (javaType.endsWith("[]")) s"new ${javaType.dropRight(2)}[16][]" else s"new $javaType[16]"
      s"$values = $alloc;\n$nulls = new boolean[16];"
    }.mkString("\n")
    val start = s"""
      |if ($firstFrontNulls == null) {
      |  $allocateFront
      |}
      |$first = 0;
      |$end = 0;
      |$frontLast = -1;
      |$initBack();
      |${frame.start}
    """.stripMargin
    val shiftFront = front.map { case (values, nulls, _) =>
      s"System.arraycopy($values, d, $values, 0, kept);\nSystem.arraycopy($nulls, d, $nulls, 0, kept);"
    }.mkString("\n")
    val shift = s"""
      |final int kept = $frontLast + 1 - d;
      |if (kept > 0) {
      |  $shiftFront
      |}
      |$first -= d;
      |$end -= d;
      |$frontLast -= d;
      |${frame.shift}
    """.stripMargin
    val perRow = s"""
      |${frame.locate}
      |while ($end <= frameLastOfRow) { $addToBack($end); $end++; }
      |if (frameFirstOfRow > $first) {
      |  $first = frameFirstOfRow;
      |  if ($first > $frontLast) $moveBackToFront();
      |}
      |if (frameFirstOfRow > frameLastOfRow) $evaluateEmpty();
      |else if ($first <= $frontLast) $evaluateFrontAndBack(frameFirstOfRow, frameLastOfRow);
      |else $evaluateBack(frameFirstOfRow, frameLastOfRow);
    """.stripMargin
    val frontSlotBytes = types.map(t => 1 + t.defaultSize).sum
    KernelCode("", perRow, start, shift,
      stateBytes = s"($firstFrontNulls == null ? 0L : (long) $firstFrontNulls.length * ${frontSlotBytes}L)",
      stateBytesPerRow = frontSlotBytes)
  }
}
