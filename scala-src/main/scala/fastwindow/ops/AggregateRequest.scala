package fastwindow.ops

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.DataType

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
