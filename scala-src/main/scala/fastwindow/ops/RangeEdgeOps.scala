package fastwindow.ops

import org.apache.spark.sql.catalyst.expressions.{Descending, NullsFirst, SortOrder}

/**
 * One edge of a RANGE frame with a value offset: `setEdge(i)` computes the edge value from row
 * i's ORDER BY key, `compareToEdge(j)` compares row j's key with it in the ORDER BY direction
 * (nulls as the ORDER BY places them, equal to a null edge).
 */
abstract class RangeEdgeOps {
  def setEdge(i: Int): Unit
  def compareToEdge(j: Int): Int
}

object RangeEdgeOps {

  /**
   * A key compared with an edge value in the ORDER BY direction of `order` (`ordering`: its
   * type's): nulls where the ORDER BY puts them, equal to a null edge.
   */
  def compare(key: Any, edge: Any, ordering: Ordering[Any], order: SortOrder): Int =
    if (key == null || edge == null) {
      if (key == null && edge == null) 0
      else if ((key == null) == (order.nullOrdering == NullsFirst)) -1
      else 1
    } else {
      val c = ordering.compare(key, edge)
      if (order.direction == Descending) -c else c
    }
}
