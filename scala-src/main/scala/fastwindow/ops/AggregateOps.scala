package fastwindow.ops

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{AggregateWindowFunction, AttributeReference, BindReferences, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.types.DataType

/**
 * The expression-dependent half of a declarative aggregate's window evaluation: the aggregate's
 * own initial, update, merge and evaluate expressions, applied to aggregation buffers and to rows
 * of the partition's columns. The frame algorithms (`fastwindow.frames`, `fastwindow.kernels`)
 * are written once against this class and decide which rows go into which buffer; two
 * implementations run the expressions: generated Java (`fastwindow.codegen.AggregateCodegen`,
 * the accumulator in fields, slots as primitive arrays) and [[InterpretedAggregateOps]]
 * (`Expression.eval` over rows), with identical results.
 *
 * There is one running buffer, the accumulator (`reset`, `add`, `write`: running and whole
 * frames, and the back of the two stacks), and numbered buffers, the slots, each the aggregate of
 * a suffix of rows (the front of the two stacks: `foldSuffix`, `writeMerged`). Slots keep their
 * contents until overwritten, also across partitions; `growSlots` keeps them too. A write whose
 * frame must be recomputed row by row (see [[AggregateRequest]]) writes nothing and returns false.
 *
 * @param slotBytes the estimated bytes of one slot ([[AggregateRequest.slotBytes]])
 */
abstract class AggregateOps(val slotBytes: Long) {

  /** Accumulator = the aggregate's initial buffer. */
  def reset(): Unit

  /** Accumulator = `buffer`, a buffer of this aggregate (the state of earlier rows). */
  def seed(buffer: InternalRow): Unit

  /** Accumulator = accumulator updated with the row at buffered position `row`. */
  def add(row: Int): Unit

  /** Accumulator = accumulator updated with rows `from until until`, in order. */
  def addRange(from: Int, until: Int): Unit

  /** Evaluates the accumulator into the result that `writeResult` writes (evaluate once). */
  def evaluate(): Unit

  /** Writes the last evaluated result into `out` at the function's ordinal. */
  def writeResult(out: InternalRow): Unit

  /** Evaluates the accumulator and writes the result into `out` (see above for false). */
  def write(out: InternalRow): Boolean

  /** Writes the result of an empty frame (the initial buffer, evaluated) into `out`. */
  def writeEmpty(out: InternalRow): Unit

  /** Slots usable now (`0 until slots`). */
  def slots: Int

  /** Makes at least `minSlots` slots usable. */
  def growSlots(minSlots: Int): Unit

  /**
   * For each j in `from until until`, slot j = the aggregate of rows `j until until`, merged
   * from the back (row j's own buffer on the left of the later rows' partial).
   */
  def foldSuffix(from: Int, until: Int): Unit

  /** Copies slots `from until from + count` to `to until to + count` (overlap allowed). */
  def moveSlots(from: Int, to: Int, count: Int): Unit

  /**
   * Writes the result of slot `s` (earlier rows) merged with the accumulator (later rows) into
   * `out` (see above for false); the merge is not stored.
   */
  def writeMerged(s: Int, out: InternalRow): Boolean

  /** Estimated bytes of the buffers allocated so far. */
  final def stateBytes: Long = (slots + 1L) * slotBytes
}

object AggregateOps {

  /** Slots allocated up front; both implementations grow alike, so their `stateBytes` agree. */
  val InitialSlots = 4

  def grownSlots(current: Int, minSlots: Int): Int = math.max(minSlots, 2 * current)
}

/**
 * An aggregation as bound expressions: `update` reads the buffer then the partition's columns,
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

  /**
   * `aggs` (reading `columns`) side by side in one buffer, evaluating the first; the others are
   * companions a guard reads (see [[AggregateRequest]]). Window-only aggregates (nth_value) have
   * no merge: they only run over frames that never merge.
   */
  def of(aggs: Seq[DeclarativeAggregate], columns: Seq[AttributeReference]): BoundAggregate = {
    val buffer = aggs.flatMap(_.aggBufferAttributes)
    BoundAggregate(
      buffer,
      aggs.flatMap(_.initialValues),
      BindReferences.bindReferences(aggs.flatMap(_.updateExpressions), buffer ++ columns),
      if (aggs.exists(_.isInstanceOf[AggregateWindowFunction])) Nil
      else BindReferences.bindReferences(
        aggs.flatMap(_.mergeExpressions), buffer ++ aggs.flatMap(_.inputAggBufferAttributes)),
      BindReferences.bindReference(aggs.head.evaluateExpression, buffer)
    )
  }
}

/**
 * One aggregate to run over slots, writing its results at `ordinal`.
 *
 * @param needsExact on a slot's buffer: true when the frame it holds must be recomputed row by
 *                   row with the exact aggregate (combining partials in another order than
 *                   Spark's row loop could then change an overflow or a rounding)
 */
final case class AggregateRequest(
    aggregate: BoundAggregate,
    resultType: DataType,
    ordinal: Int,
    needsExact: Option[Expression] = None) {

  /**
   * Estimated bytes per slot: a null flag and the value's default size per buffer field. One
   * estimate for both implementations, so whether a partition fits in memory never depends on
   * the codegen mode.
   */
  def slotBytes: Long = aggregate.bufferTypes.map(t => 1L + t.defaultSize).sum
}
