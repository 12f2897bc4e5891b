package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, Cast, RowOrdering, SortOrder}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{DataType, StringType}

import fastwindow.functions.TypeSet

/**
 * The order of the rows within each range of a window spread over tasks.
 *
 * Rows with equal ORDER BY keys (peers) may come in any order, and Spark's sort keeps the order
 * they arrive in, which differs between two reads of a shuffle (remote blocks are fetched in a
 * random order). Seeded functions keep that order (peers never cross a range boundary, and counts
 * and states do not depend on their order; first, last and nth_value pick among peers by the map
 * tasks' order and arrival, the order a range's task reads them in when the shuffle's blocks come
 * in map order, as a one-task Spark's do: see `DecidingRows`; beside halo functions, by the
 * tie-break below, the order their ranges' peers are put in), but halo rows cannot: the rows a
 * range hands on to its neighbour must be the ones that come last (first) in the order that
 * range's own task evaluates. So when halo functions run, each range's rows are in the order of
 * the ORDER BY keys, then of every other column, then of the spelling of the ORDER BY keys whose
 * equal values can differ in their bytes (0.0 and -0.0, strings equal under a collation): peers
 * are ordered the same in every read and every summary, and peers that still compare equal hold
 * the same values. Spark sorts each range by the ORDER BY keys, [[PeersInOrder]] the peers.
 */
object RangeOrder {

  /**
   * The window's ORDER BY, then every other column of `output`, then the ORDER BY keys that are
   * not byte-stable as strings (whose order tells their spellings apart), ascending.
   */
  def withTieBreak(orderSpec: Seq[SortOrder], output: Seq[Attribute]): Seq[SortOrder] = {
    val keys = orderSpec.map(_.child)
    val others = output.filterNot(a => keys.exists(_.semanticEquals(a)))
    val spellings = keys.filterNot(key => TypeSet.byteStable.contains(key.dataType))
      .map(Cast(_, StringType, Some(SQLConf.get.sessionLocalTimeZone)))
    orderSpec ++ (others ++ spellings).map(SortOrder(_, Ascending))
  }

  /** A column type of `output` that has no order (a map, say), if any. */
  def unorderable(output: Seq[Attribute]): Option[DataType] =
    output.map(_.dataType).find(t => !RowOrdering.isOrderable(t))
}
