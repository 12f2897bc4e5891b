package fastwindow.kernels

import org.apache.spark.sql.catalyst.expressions.{Descending, Expression, GenericInternalRow, NullsFirst, SortOrder}
import org.apache.spark.sql.catalyst.expressions.codegen.{ExprCode, FalseLiteral, JavaCode}
import org.apache.spark.sql.catalyst.types.PhysicalDataType

import fastwindow.buffer.{Column, ColumnType}
import fastwindow.codegen.GenContext
import fastwindow.exec.ColumnSpec
import fastwindow.planning.{FrameShape, RangeEdge}

/**
 * Finds row i's frame, as buffered rows `[first, last]` (empty when first > last), for the sliding
 * frames of [[SlidingAggregate]]. Rows are located in order, and neither edge ever moves back, which
 * is what lets the two stacks run in O(n) per partition.
 */
trait FrameLocator {
  var first: Int = 0
  var last: Int = -1
  def reset(): Unit = {}
  def locate(i: Int, n: Int): Unit
  def shift(d: Int): Unit = {}
}

/**
 * The generated twin of a [[FrameLocator]]: `locate` (with `i` and `n` in scope) declares
 * `frameFirstOfRow` and `frameLastOfRow`; `start` and `shift` (with `d`) keep its state.
 */
final case class FrameLocatorCode(locate: String, start: String = "", shift: String = "")

/** ROWS frames: fixed offsets from the current row, clipped to the partition. */
final class RowsLocator(frame: FrameShape.SlidingRows, cursor: PartitionCursor) extends FrameLocator {
  override def locate(i: Int, n: Int): Unit = {
    first = SlidingAggregate.frameFirst(frame, i, n, cursor.base)
    last = SlidingAggregate.frameLast(frame, i, n, cursor.base)
  }
}

object RowsLocator {
  def generate(frame: FrameShape.SlidingRows, g: GenContext): FrameLocatorCode = {
    val base = g.base
    val lower = frame.lower.fold(s"-$base")(o =>
      s"(int) Math.max((long) -$base, Math.min((long) n, (long) i + ${o}L))")
    val upper = frame.upper.fold("n - 1")(o =>
      s"(int) Math.max(-1L - $base, Math.min(n - 1L, (long) i + ${o}L))")
    FrameLocatorCode(s"final int frameFirstOfRow = $lower;\nfinal int frameLastOfRow = $upper;")
  }
}

/**
 * RANGE frames ([[FrameShape.SlidingRange]]) over a buffered partition: the frame is `[lo, hi)`,
 * two pointers that only move forward. The upper pointer passes every row whose key compares at
 * or before the upper edge value; the lower one passes the rows (already inside the frame) whose
 * key compares before the lower edge value; CURRENT ROW edges are the peer group's.
 *
 * This is the loop of Spark's sliding, growing and shrinking frames, and it evaluates an edge
 * value exactly when Spark does: the upper one while rows remain beyond the frame, the lower one
 * while the frame holds rows. An edge that overflows under ANSI therefore fails the query exactly
 * where Spark's fails, and one Spark never computes fails nowhere. Keys compare with Spark's
 * ordering (nulls as the ORDER BY says and equal to each other, NaN above every number and equal
 * to NaN, -0.0 = 0.0), so a null key's frame is the partition's null keys.
 */
final class RangeLocator(
    frame: FrameShape.SlidingRange,
    key: Option[Column],
    cursor: PartitionCursor) extends FrameLocator {

  private val order: Option[SortOrder] = frame.key
  private val ordering: Ordering[Any] =
    key.map(c => PhysicalDataType.ordering(c.dataType)).orNull
  private val keyRow = new GenericInternalRow(1)
  private var lo = 0
  private var hi = 0

  override def reset(): Unit = { lo = 0; hi = 0 }

  override def locate(i: Int, n: Int): Unit = {
    frame.upper match {
      case RangeEdge.Unbounded => hi = n
      case RangeEdge.CurrentRow => hi = math.max(hi, cursor.end)
      case RangeEdge.Offset(bound) =>
        if (hi < n) {
          val edge = edgeValue(bound, i)
          while (hi < n && compareKey(hi, edge) <= 0) hi += 1
        }
    }
    frame.lower match {
      case RangeEdge.Unbounded => lo = 0
      case RangeEdge.CurrentRow => lo = math.max(lo, math.min(cursor.start, hi))
      case RangeEdge.Offset(bound) =>
        if (lo < hi) {
          val edge = edgeValue(bound, i)
          while (lo < hi && compareKey(lo, edge) < 0) lo += 1
        }
    }
    first = lo
    last = hi - 1
  }

  private def edgeValue(bound: Expression, i: Int): Any = {
    keyRow.update(0, key.get.get(i))
    bound.eval(keyRow)
  }

  /** Spark's ordering of row j's key against an edge value, in the ORDER BY direction. */
  private def compareKey(j: Int, edge: Any): Int = {
    val column = key.get
    val sortOrder = order.get
    val jNull = column.isNull(j)
    if (jNull || edge == null) {
      if (jNull && edge == null) 0
      else if (jNull == (sortOrder.nullOrdering == NullsFirst)) -1
      else 1
    } else {
      val c = ordering.compare(column.get(j), edge)
      if (sortOrder.direction == Descending) -c else c
    }
  }
}

object RangeLocator {
  def generate(
      frame: FrameShape.SlidingRange,
      key: Option[ColumnSpec],
      g: GenContext): FrameLocatorCode = {
    val lo = g.intField("rangeLo")
    val hi = g.intField("rangeHi")
    lazy val compareKey = {
      val column = key.get
      val order = frame.key.get
      val javaType = ColumnType.javaType(column.dataType)
      val nullsFirst = order.nullOrdering == NullsFirst
      val c = g.ctx.genComp(column.dataType, g.value(column, "j"), "edge")
      val name = g.freshName("compareRangeKey")
      g.ctx.addNewFunction(name, s"""
        |private int $name(int j, boolean edgeIsNull, $javaType edge) {
        |  final boolean keyIsNull = ${g.isNull(column, "j")};
        |  if (keyIsNull || edgeIsNull) {
        |    if (keyIsNull && edgeIsNull) return 0;
        |    return keyIsNull == $nullsFirst ? -1 : 1;
        |  }
        |  final int c = $c;
        |  return ${if (order.direction == Descending) "-c" else "c"};
        |}
      """.stripMargin, inlineToOuterClass = true)
    }
    /** Code that computes the edge value of row i, then moves `pointer` while `test` holds. */
    def advance(bound: Expression, pointer: String, limit: String, test: String): String = {
      val column = key.get
      val keyAtI = ExprCode(
        if (column.nullable) JavaCode.isNullExpression(g.isNull(column, "i")) else FalseLiteral,
        JavaCode.expression(g.value(column, "i"), column.dataType))
      val edge = g.withInputs(Seq(keyAtI))(bound.genCode(g.ctx))
      s"""
         |if ($pointer < $limit) {
         |  ${edge.code}
         |  while ($pointer < $limit && $compareKey($pointer, ${edge.isNull}, ${edge.value}) $test) {
         |    $pointer++;
         |  }
         |}
       """.stripMargin
    }
    val upper = frame.upper match {
      case RangeEdge.Unbounded => s"$hi = n;"
      case RangeEdge.CurrentRow => s"if (${g.peerEnd} > $hi) $hi = ${g.peerEnd};"
      case RangeEdge.Offset(bound) => advance(bound, hi, "n", "<= 0")
    }
    val lower = frame.lower match {
      case RangeEdge.Unbounded => s"$lo = 0;"
      case RangeEdge.CurrentRow =>
        s"{ final int peers = Math.min(${g.peerStart}, $hi); if (peers > $lo) $lo = peers; }"
      case RangeEdge.Offset(bound) => advance(bound, lo, hi, "< 0")
    }
    FrameLocatorCode(
      s"""
         |{
         |  $upper
         |}
         |{
         |  $lower
         |}
         |final int frameFirstOfRow = $lo;
         |final int frameLastOfRow = $hi - 1;
       """.stripMargin,
      start = s"$lo = 0;\n$hi = 0;")
  }
}
