package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, RowOrdering, SortOrder}
import org.apache.spark.sql.types.DataType

/**
 * The order of the rows within each range of a window spread over tasks.
 *
 * Rows with equal ORDER BY keys (peers) may come in any order, and Spark's sort keeps the order
 * they arrive in, which differs between two reads of a shuffle (remote blocks are fetched in a
 * random order). Most seeded functions do not care (peers never cross a range boundary, and counts
 * and states do not depend on their order), but halo rows do: the rows a range hands on to its
 * neighbour must be the ones that come last (first) in the order that range's own task evaluates;
 * and so do first, last and nth_value, whose state is that of given rows, picked by the map tasks'
 * summaries for the ranges after and by the range's own sort for itself. So when such functions
 * run, each range is sorted by the ORDER BY keys and then by every other column: peers are ordered
 * by their values, the same in every read and every summary, and peers equal in every column are
 * interchangeable.
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
