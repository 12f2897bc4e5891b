package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, SortOrder}
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.types.{DataType, DecimalType}

/**
 * What a `FastWindow` operator runs: every window expression of one logical `Window`, resolved
 * to functions fastwindow evaluates (each planned by its family in `fastwindow.functions`).
 *
 * Built once per operator by the support check (`fastwindow.functions.WindowSupport`); the
 * operator, its split, its report and its tasks all read this one plan.
 *
 * @param functions the distinct window functions of the node; `ordinal` is the function's slot in
 *                  the row of function results the evaluator fills
 * @param outputs   one expression per window expression of the node, in output order, computing
 *                  it from the function results (usually just a reference to one slot; optimizer
 *                  rules such as DecimalAggregates wrap some functions in a cast or division)
 * @param orderSpec the node's ORDER BY, used to find peers (rows with equal order keys)
 */
final case class WindowPlan(
    functions: Seq[FunctionSpec],
    outputs: Seq[Expression],
    orderSpec: Seq[SortOrder]) {

  def resultTypes: Seq[DataType] = functions.map(_.resultType)

  /** Whether any function needs to know where each group of peers starts and ends. */
  def needsPeers: Boolean = functions.exists(_.needsPeers)

  /**
   * Whether no function reads buffered rows when writing results (whole-partition aggregates are
   * complete once their rows are ingested; row_number and ntile only count), so rows can be
   * dropped as soon as they are ingested, even when the partition itself must be buffered.
   */
  def readsNoRowsOnWrite: Boolean = functions.forall(!_.readsRowsOnWrite)

  /** Whether all rows of a partition share every result (only whole-partition aggregates). */
  def resultsPerPartition: Boolean = functions.forall(_.resultPerPartition)

  /** How the node can stream: the union of its functions' bounds; None if any needs buffering. */
  def streamBounds: Option[StreamBounds] = unionOf(functions.map(_.streamBounds))

  /** As `streamBounds`, for a seeded range of the window (see `FunctionSpec.seededStreamBounds`). */
  def seededStreamBounds: Option[StreamBounds] = unionOf(functions.map(_.seededStreamBounds))

  private def unionOf(bounds: Seq[Option[StreamBounds]]): Option[StreamBounds] =
    bounds.reduceOption[Option[StreamBounds]] {
      case (Some(a), Some(b)) => Some(a.union(b))
      case _ => None
    }.getOrElse(Some(StreamBounds.Immediate))

  /**
   * Whether the window outputs are exactly the function results in order and all fixed-width
   * (decimals excluded: the output projection re-checks their precision as Spark does), so a
   * generated evaluator can write them straight into the output row.
   */
  def resultsAreOutputs: Boolean =
    outputs.size == functions.size &&
      outputs.zipWithIndex.forall {
        case (b: BoundReference, i) => b.ordinal == i
        case _ => false
      } &&
      resultTypes.forall(t => UnsafeRow.isFixedLength(t) && !t.isInstanceOf[DecimalType])
}

/**
 * One window function of a [[WindowPlan]], as its family planned it. The family (see
 * `fastwindow.functions.FunctionFamily`) defines the concrete class and builds its kernel; what
 * the operator needs to know about every function is here.
 */
trait FunctionSpec extends Serializable {

  /** Slot of the function's result in the row of function results. */
  def ordinal: Int
  def resultType: DataType

  /** The value expressions (evaluated once per input row, into columns) this function reads. */
  def inputs: Seq[Expression]
  def needsPeers: Boolean

  /** None when the function needs its whole partition buffered. */
  def streamBounds: Option[StreamBounds]

  /**
   * How the function streams over a range of a window spread over tasks, whose seed tells what
   * one task learns only at its partition's end (the window's size, a whole frame's state).
   */
  def seededStreamBounds: Option[StreamBounds] = streamBounds

  /** Whether writing a result reads buffered rows (columns or peer flags). */
  def readsRowsOnWrite: Boolean

  /** Whether every row of a partition gets the same result. */
  def resultPerPartition: Boolean = false

  /** How reasons and reports name the function and its frame. */
  def describe: String

  /** What the function is to DataFusion Comet's native window, when Comet is in the session. */
  def besideComet: BesideComet = BesideComet.NotNative(s"Comet does not run $describe natively")
}

/**
 * A function of one value over a frame whose state spans the whole partition (value ranks, value
 * ids, the rows themselves), so its partition is buffered and writing a result reads the columns.
 */
trait BufferedFrameFunction extends FunctionSpec {
  def frame: FrameShape

  /** The value read per row (a constant needs no column). */
  def value: Expression
  override def needsPeers: Boolean = frame.needsPeers
  override def inputs: Seq[Expression] = Seq(value).filterNot(_.foldable) ++ frame.rangeKeyInput
  override def streamBounds: Option[StreamBounds] = None
  override def readsRowsOnWrite: Boolean = true
}

/**
 * What a function needs to produce row i's result without the rest of its partition: the next
 * `lookahead` rows (or, with `waitsForPeers`, the rest of row i's peer group), and no row before
 * `i - history`. Functions with such bounds are evaluated while rows stream through; the others
 * (whole-partition frames, UNBOUNDED FOLLOWING, partition sizes, IGNORE NULLS lookups) need their
 * partition buffered.
 */
final case class StreamBounds(lookahead: Int, history: Int, waitsForPeers: Boolean) {
  def union(o: StreamBounds): StreamBounds = StreamBounds(
    math.max(lookahead, o.lookahead), math.max(history, o.history),
    waitsForPeers || o.waitsForPeers)
}

object StreamBounds {

  /** The result is known as soon as the row arrives and reads no earlier row. */
  val Immediate: StreamBounds = StreamBounds(0, 0, waitsForPeers = false)

  /** Rows `i + lower .. i + upper` (clamped to what an Int can count). */
  def ofOffsets(lower: Long, upper: Long): StreamBounds = StreamBounds(
    math.min(math.max(upper, 0L), Int.MaxValue.toLong).toInt,
    math.min(math.max(-lower, 0L), Int.MaxValue.toLong).toInt,
    waitsForPeers = false)
}

/**
 * Why fastwindow leaves a window node to Spark: a stable `id` (what tools and tests match on;
 * see the companion for the ids) and a message naming the function, the frame, the type and,
 * where one exists, the setting that would change the outcome.
 */
final case class FallbackReason(id: String, message: String) {
  override def toString: String = message
}

object FallbackReason {

  /** `spark.fastwindow.enabled` is false in the session. */
  val Disabled = "disabled"

  /** The planner strategy is not installed (no extension, no `enable`). */
  val NotInstalled = "not-installed"

  /** A Python UDF window: Spark's own Python operator runs it. */
  val PythonUdf = "python-udf"

  /** A window function or aggregate fastwindow has no family for. */
  val UnsupportedFunction = "unsupported-function"

  /** A supported function over an input type it does not run. */
  val UnsupportedType = "unsupported-type"

  /** A supported function over a frame it does not run. */
  val UnsupportedFrame = "unsupported-frame"

  /** An argument that must be constant, or within a range, is not. */
  val UnsupportedArgument = "unsupported-argument"

  /** Peers (ties) of an ORDER BY key whose type fastwindow cannot compare. */
  val UnsupportedOrderKey = "unsupported-order-key"

  /** A window expression that is not a function of window functions alone. */
  val UnsupportedExpression = "unsupported-expression"

  /** DataFusion Comet's native window runs it, measured faster (`spark.fastwindow.besideComet`). */
  val LeftToComet = "left-to-comet"
}
