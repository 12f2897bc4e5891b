package fastwindow.ops

import org.apache.spark.sql.catalyst.InternalRow

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
