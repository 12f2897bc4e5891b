package fastwindow.ops

import org.apache.spark.sql.catalyst.expressions.{Expression, SortOrder}

/**
 * What a [[RangeEdgeOps]] is made from: one edge of a RANGE frame with a value offset.
 *
 * @param bound the edge value from the key, which it reads as `BoundReference(0)`
 * @param key   the ORDER BY key, bound to the columns
 */
final case class RangeEdgeRequest(bound: Expression, key: Expression, order: SortOrder)
