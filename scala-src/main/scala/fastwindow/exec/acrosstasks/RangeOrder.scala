package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, RowOrdering, SortOrder}
import org.apache.spark.sql.types.DataType

/**
 * The order of the rows within each range of a window spread over tasks.
 *
 * Rows with equal ORDER BY keys (peers) may come in any order, and Spark's sort keeps the order
 * they arrive in, which differs between two reads of a shuffle (remote blocks are fetched in a
 * random order). Seeded functions keep that order (peers never cross a range boundary, and counts
 * and states do not depend on their order; first, last and nth_value pick among peers by the map
 * tasks' order and arrival, the order a range's task reads them in when the shuffle's blocks come
 * in map order, as a one-task Spark's do: see `DecidingRows`), but halo rows cannot: the rows a
 * range hands on to its neighbour must be the ones that come last (first) in the order that
 * range's own task evaluates. So when halo functions run, each range is sorted by the ORDER BY
 * keys and then by every other column: peers are ordered by their values, the same in every read
 * and every summary, and peers equal in every column are interchangeable.
 */
object RangeOrder {

  /** The window's ORDER BY, then every other column of `output`, ascending. */
  def withTieBreak(orderSpec: Seq[SortOrder], output: Seq[Attribute]): Seq[SortOrder] =
    orderSpec ++ output
      .filterNot(a => orderSpec.exists(_.child.semanticEquals(a)))
      .map(SortOrder(_, Ascending))

  /** A column type of `output` that has no order (a map, say), if any. */
  def unorderable(output: Seq[Attribute]): Option[DataType] =
    output.map(_.dataType).find(t => !RowOrdering.isOrderable(t))
}
