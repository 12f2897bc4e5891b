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
