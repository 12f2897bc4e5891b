package fastwindow.exec.acrosstasks

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Add, Attribute, BindReferences, DateAdd, Expression, GenericInternalRow, UnsafeRow}
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.types.{ByteType, DataType, DateType, IntegerType, LongType, ShortType}

import fastwindow.model.{RangeEdge, Spread}
import fastwindow.ops.RangeEdgeOps

/**
 * The rows of neighbouring ranges that RANGE frames bounded by value offsets reach
 * ([[Spread.ValueReach]]), found on the driver from the ranges' summaries, and the check every
 * summarised row gets that its key plus an offset does not wrap around.
 *
 * A frame edge is computed as the window computes it (the edge's own expression, see
 * `RangeEdge.Offset`) and keys compare with it in the ORDER BY direction, nulls where the ORDER BY
 * puts them. Edges move forward with the key, so the rows before a range that any of its rows
 * reaches are those at or after the lower edge of its first row: a suffix of the rows before it.
 * That holds while no key plus an offset wraps around (an integral key's addition outside ANSI
 * mode, a date's in every mode): Spark's frame then follows the wrapped edge, and the pointers it
 * moves only forward carry that into later rows' frames, which only the whole window in order
 * reproduces. Such a key is recorded by the summaries ([[wraps]]) and the ranges run in one task.
 */
final class ReachedRows(reach: Spread.ValueReach, input: Seq[Attribute]) extends Serializable {
  private val order = reach.frames.head.key.get
  private val key: Expression = BindReferences.bindReference(order.child, input)
  private val lowerEdges = reach.frames.map(_.lower).collect { case RangeEdge.Offset(b) => b }
  private val upperEdges = reach.frames.map(_.upper).collect { case RangeEdge.Offset(b) => b }

  /** The keys whose every edge is computed without wrapping around (as longs), if any can. */
  private val unwrapped: Option[(Long, Long)] = {
    val limits = ReachedRows.limits(order.dataType)
    val offsets = (lowerEdges ++ upperEdges).flatMap {
      case a: Add if limits.isDefined => Option(a.right.eval()).map(_.asInstanceOf[Number])
      case d: DateAdd => Option(d.right.eval()).map(_.asInstanceOf[Number])
      case _ => None
    }.map(_.longValue)
    limits.filter(_ => offsets.nonEmpty).map { case (min, max) =>
      // k + off stays within [min, max] for min - off <= k <= max - off (one side per sign).
      (offsets.map(o => if (o < 0) min - o else min).max,
        offsets.map(o => if (o > 0) max - o else max).min)
    }
  }

  /** Whether `row`'s key plus an offset wraps around (see above). */
  def wraps(row: InternalRow): Boolean = unwrapped.exists { case (lowest, highest) =>
    val k = key.eval(row)
    k != null && {
      val v = k.asInstanceOf[Number].longValue
      v < lowest || v > highest
    }
  }

  @transient private lazy val ordering = PhysicalDataType.ordering(order.dataType)

  private def compareToEdge(row: InternalRow, edge: Any): Int =
    RangeEdgeOps.compare(key.eval(row), edge, ordering, order)

  private def edgesOf(row: InternalRow, bounds: Seq[Expression]): Seq[Any] = {
    val keyRow = new GenericInternalRow(Array[Any](key.eval(row)))
    bounds.map(_.eval(keyRow))
  }

  /**
   * The rows of the ranges before a range (`ranges`, nearest first, each one's kept last rows in
   * order and its row count) that the range reaches, its first row being `first`: in order, or
   * None when a range's kept rows end before the reached ones do, or an edge fails.
   */
  def before(
      first: UnsafeRow, ranges: Iterator[(Array[UnsafeRow], Long)]): Option[Array[UnsafeRow]] =
    reached(ranges, fromEnd = true, edgesOf(first, lowerEdges),
      (row, edge) => compareToEdge(row, edge) >= 0)

  /** The same after a range whose last row is `last` (ranges after it, their first rows). */
  def after(last: UnsafeRow, ranges: Iterator[(Array[UnsafeRow], Long)]): Option[Array[UnsafeRow]] =
    reached(ranges, fromEnd = false, edgesOf(last, upperEdges),
      (row, edge) => compareToEdge(row, edge) <= 0)

  /**
   * From the nearest range outwards, the kept rows that reach one of `edges` (a suffix of the
   * rows before, a prefix of those after); a range whose kept rows all do leads on to the next
   * one, unless it has more rows than it kept: then the reached rows are not all known.
   */
  private def reached(ranges: Iterator[(Array[UnsafeRow], Long)], fromEnd: Boolean,
      edges: => Seq[Any], inFrame: (InternalRow, Any) => Boolean): Option[Array[UnsafeRow]] =
    try {
      val computed = edges
      def reaches(row: InternalRow) = computed.exists(inFrame(row, _))
      var taken = List.empty[Array[UnsafeRow]]
      var complete = true
      var more = computed.nonEmpty
      while (more && ranges.hasNext) {
        val (rows, count) = ranges.next()
        val part =
          if (fromEnd) rows.reverseIterator.takeWhile(reaches).toArray.reverse
          else rows.iterator.takeWhile(reaches).toArray
        taken = part :: taken
        more = part.length == rows.length
        if (more && rows.length < count) { complete = false; more = false }
      }
      if (!complete) None
      else Some(if (fromEnd) taken.toArray.flatten else taken.reverse.toArray.flatten)
    } catch {
      case NonFatal(_) => None // the window in one task fails (or not) where Spark's does
    }
}

object ReachedRows {

  /** The smallest and largest value of a key type whose addition of an offset may wrap. */
  private def limits(t: DataType): Option[(Long, Long)] = PartialFunction.condOpt(t) {
    case ByteType => (Byte.MinValue.toLong, Byte.MaxValue.toLong)
    case ShortType => (Short.MinValue.toLong, Short.MaxValue.toLong)
    case IntegerType | DateType => (Int.MinValue.toLong, Int.MaxValue.toLong)
    case LongType => (Long.MinValue, Long.MaxValue)
  }
}
