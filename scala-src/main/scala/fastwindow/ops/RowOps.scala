package fastwindow.ops

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Descending, Expression, NullsFirst, SortOrder}
import org.apache.spark.sql.types.DataType

/**
 * The expression-dependent parts of one operator's evaluation other than aggregates: filling the
 * columns from input rows, comparing rows' ORDER BY keys, RANGE frame edges, copying a value into
 * the result row. Each has a generated implementation (`fastwindow.codegen`) and an interpreted
 * twin ([[InterpretedOps]]); the algorithms that call them are written once.
 */

/** Fills row `r` of every column from an input row (the evaluator has made room for it). */
abstract class ColumnExtractor {
  def extract(row: InternalRow, r: Int): Unit
}

/** Whether two buffered rows are peers: every ORDER BY key equal, nulls equal to nulls. */
abstract class PeerKeys {
  def same(a: Int, b: Int): Boolean
}

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

/**
 * A value to copy into the result row at the function's ordinal: an input (a column, or a
 * constant) read at a buffered row, or a default evaluated at a row (lead/lag).
 */
abstract class ValueOps {
  def isNull(row: Int): Boolean
  def write(row: Int, out: InternalRow): Unit
  def writeDefault(row: Int, out: InternalRow): Unit
}

/**
 * @param input   bound to the columns (a column's ordinal or a constant)
 * @param default bound to the columns; None writes null
 */
final case class ValueRequest(
    input: Expression,
    default: Option[Expression],
    resultType: DataType,
    ordinal: Int)

/**
 * @param bound the edge value from the key, which it reads as `BoundReference(0)`
 * @param key   the ORDER BY key, bound to the columns
 */
final case class RangeEdgeRequest(bound: Expression, key: Expression, order: SortOrder)

/** What one function needs generated (or interpreted) for it, in the order its kernel reads. */
final case class FunctionRequests(
    aggregates: Seq[AggregateRequest] = Nil,
    values: Seq[ValueRequest] = Nil,
    rangeEdges: Seq[RangeEdgeRequest] = Nil) {
  def ++(o: FunctionRequests): FunctionRequests =
    FunctionRequests(aggregates ++ o.aggregates, values ++ o.values, rangeEdges ++ o.rangeEdges)
}

/** The instances of one function's [[FunctionRequests]], in the same order. */
final class FunctionOps(
    val aggregates: IndexedSeq[AggregateOps],
    val values: IndexedSeq[ValueOps],
    val rangeEdges: IndexedSeq[RangeEdgeOps])

/** Constructors generated Java code can call with arrays. */
object FunctionOps {
  def of(
      aggregates: Array[AggregateOps],
      values: Array[ValueOps],
      rangeEdges: Array[RangeEdgeOps]): FunctionOps =
    new FunctionOps(aggregates.toIndexedSeq, values.toIndexedSeq, rangeEdges.toIndexedSeq)

  def indexed(functions: Array[FunctionOps]): IndexedSeq[FunctionOps] = functions.toIndexedSeq
}

/** Every expression-dependent part of one operator, for one task. */
final class OpsSet(
    val extractor: ColumnExtractor,
    val peerKeys: PeerKeys,
    val functions: IndexedSeq[FunctionOps])
