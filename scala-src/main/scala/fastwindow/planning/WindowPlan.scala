package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.{Expression, NthValue, SortOrder}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.types.DataType

import fastwindow.kernels.SlidingAggregate

/**
 * What [[fastwindow.exec.FastWindowExec]] runs: every window expression of one logical `Window`,
 * resolved to a function fastwindow knows how to evaluate and the frame shape it runs over.
 *
 * A `WindowPlan` only exists for nodes that passed [[WindowSupport.check]]; it is derived again
 * (deterministically) from the physical node's fields, so it never needs to be serialized apart
 * from the node.
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
  /** Whether any function needs to know where each group of peers starts and ends. */
  def needsPeers: Boolean = functions.exists(_.needsPeers)

  /**
   * Whether no function reads buffered rows when writing results (whole-partition aggregates are
   * complete once their rows are ingested; row_number and ntile only count), so rows can be
   * dropped as soon as they are ingested, even when the partition itself must be buffered.
   */
  def readsNoRowsOnWrite: Boolean = functions.forall(!_.readsRowsOnWrite)

  /** How the node can stream: the union of its functions' bounds; None if any needs buffering. */
  def streamBounds: Option[StreamBounds] =
    functions.map(_.streamBounds).reduceOption[Option[StreamBounds]] {
      case (Some(a), Some(b)) => Some(a.union(b))
      case _ => None
    }.getOrElse(Some(StreamBounds.Immediate))
}

/**
 * What a function needs to produce row i's result without the rest of its partition: the next
 * `lookahead` rows (or, with `waitsForPeers`, the rest of row i's peer group), and no row before
 * `i - history`. Functions with such bounds are evaluated while rows stream through; the others
 * (whole-partition frames, UNBOUNDED FOLLOWING, partition sizes, IGNORE NULLS lookups) need their
 * partition buffered.
 */
final case class StreamBounds(lookahead: Int, history: Int, waitsForPeers: Boolean) {
  def union(o: StreamBounds): StreamBounds = StreamBounds(
    math.max(lookahead, o.lookahead), math.max(history, o.history), waitsForPeers || o.waitsForPeers)
}

object StreamBounds {
  /** The result is known as soon as the row arrives and reads no earlier row. */
  val Immediate: StreamBounds = StreamBounds(0, 0, waitsForPeers = false)

  /** Rows `i + lower .. i + upper` (clamped to what an Int can count). */
  def ofOffsets(lower: Long, upper: Long): StreamBounds = StreamBounds(
    math.min(math.max(upper, 0L), Int.MaxValue.toLong).toInt,
    math.min(math.max(-lower, 0L), Int.MaxValue.toLong).toInt,
    waitsForPeers = false)
}

/** The frames fastwindow evaluates, named by shape (the algorithm follows from the shape). */
sealed abstract class FrameShape(val sql: String) extends Serializable
object FrameShape {
  /** UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING (ROWS or RANGE): one result per partition. */
  case object WholePartition extends FrameShape("UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING")
  /** ROWS UNBOUNDED PRECEDING AND CURRENT ROW: accumulate one row at a time. */
  case object RunningRows extends FrameShape("ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")
  /** RANGE UNBOUNDED PRECEDING AND CURRENT ROW: accumulate a whole group of peers at a time. */
  case object RunningRange extends FrameShape("RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")

  /**
   * Any other ROWS frame: rows `i + lower .. i + upper` of the partition for row i (negative
   * offsets precede it; `None` is UNBOUNDED), clipped to the partition, possibly empty. Both
   * bounds only move forward as i grows, so the frame slides: moving, shrinking and offset frames.
   */
  final case class SlidingRows(lower: Option[Int], upper: Option[Int])
    extends FrameShape(s"ROWS BETWEEN ${boundSql(lower, "UNBOUNDED PRECEDING")} AND " +
      boundSql(upper, "UNBOUNDED FOLLOWING"))

  /**
   * Any RANGE frame other than the whole partition and the running one: the rows whose order key
   * lies between row i's lower and upper edges (see [[RangeEdge]]), found by two pointers that
   * only move forward. `key` is the single ORDER BY key when an edge is a value offset.
   */
  final case class SlidingRange(
      lower: RangeEdge,
      upper: RangeEdge,
      key: Option[SortOrder],
      override val sql: String) extends FrameShape(sql) {
    def edges: Seq[RangeEdge] = Seq(lower, upper)
    def needsPeers: Boolean = edges.contains(RangeEdge.CurrentRow)
  }

  private def boundSql(offset: Option[Int], unbounded: String): String = offset match {
    case None => unbounded
    case Some(0) => "CURRENT ROW"
    case Some(o) if o < 0 => s"${-o.toLong} PRECEDING"
    case Some(o) => s"$o FOLLOWING"
  }
}

/** One edge of a RANGE frame. */
sealed trait RangeEdge extends Serializable
object RangeEdge {
  /** UNBOUNDED PRECEDING (lower) or UNBOUNDED FOLLOWING (upper). */
  case object Unbounded extends RangeEdge
  /** CURRENT ROW: the edge of the current row's peer group. */
  case object CurrentRow extends RangeEdge
  /**
   * `x PRECEDING` or `x FOLLOWING`: the rows whose key compares at or after (lower) or at or
   * before (upper) `bound` in the ORDER BY direction. `bound` computes the edge value from the
   * current row's key, which it reads as `BoundReference(0)`: the key plus the offset, built
   * exactly as Spark's WindowExec builds it, so overflow, time zones and intervals are Spark's.
   */
  final case class Offset(bound: Expression) extends RangeEdge
}

/** One window function fastwindow evaluates, and the result column it writes. */
sealed trait FunctionSpec {
  /** Slot of the function's result in the row of function results. */
  def ordinal: Int
  def resultType: DataType
  def needsPeers: Boolean
  /** The value expressions (evaluated per input row) this function reads. */
  def inputs: Seq[Expression]
  /** None when the function needs its whole partition buffered. */
  def streamBounds: Option[StreamBounds]
  /** Whether writing a result reads buffered rows (columns or peer flags). */
  def readsRowsOnWrite: Boolean = true
}

/** The ranking functions; their values follow from row positions and peer groups only. */
sealed abstract class RankingKind(val needsPeers: Boolean, val needsPartitionSize: Boolean)
  extends Serializable
object RankingKind {
  case object RowNumber extends RankingKind(needsPeers = false, needsPartitionSize = false)
  case object Rank extends RankingKind(needsPeers = true, needsPartitionSize = false)
  case object DenseRank extends RankingKind(needsPeers = true, needsPartitionSize = false)
  case object PercentRank extends RankingKind(needsPeers = true, needsPartitionSize = true)
  case object CumeDist extends RankingKind(needsPeers = true, needsPartitionSize = true)
  final case class NTile(buckets: Int)
    extends RankingKind(needsPeers = false, needsPartitionSize = true)
}

final case class RankingSpec(ordinal: Int, kind: RankingKind, resultType: DataType)
  extends FunctionSpec {
  override def needsPeers: Boolean = kind.needsPeers
  override def inputs: Seq[Expression] = Nil
  override def streamBounds: Option[StreamBounds] =
    if (kind.needsPartitionSize) None else Some(StreamBounds.Immediate)
  override def readsRowsOnWrite: Boolean = needsPeers
}

/**
 * lead/lag: the value of `input` `offset` rows away (lag has a negative offset), or — with
 * IGNORE NULLS — the |offset|-th non-null value after (before) the current row. When that row
 * does not exist the result is `default` evaluated on the current row (`None` means null).
 */
final case class OffsetSpec(
    ordinal: Int,
    input: Expression,
    offset: Int,
    default: Option[Expression],
    ignoreNulls: Boolean) extends FunctionSpec {
  override def resultType: DataType = input.dataType
  override def needsPeers: Boolean = false
  override def inputs: Seq[Expression] = input +: default.filterNot(_.foldable).toSeq
  /** IGNORE NULLS may look arbitrarily far for the |offset|-th non-null value. */
  override def streamBounds: Option[StreamBounds] =
    if (ignoreNulls && offset != 0) None else Some(StreamBounds.ofOffsets(offset, offset))
}

/**
 * A declarative aggregate over a frame. It is evaluated with the aggregate's own
 * initial/update/evaluate expressions, so results, types, overflow behaviour and errors are
 * Spark's by construction.
 */
final case class AggregateSpec(ordinal: Int, function: DeclarativeAggregate, frame: FrameShape)
  extends FunctionSpec {
  override def resultType: DataType = function.dataType
  override def needsPeers: Boolean = frame match {
    case FrameShape.RunningRange => true
    case r: FrameShape.SlidingRange => r.needsPeers
    case _ => false
  }
  override def inputs: Seq[Expression] =
    function.children.filterNot(_.foldable) ++ rangeKey.map(_.child)
  /** The ORDER BY key a RANGE frame with a value offset compares to its edges. */
  def rangeKey: Option[SortOrder] = frame match {
    case r: FrameShape.SlidingRange => r.key
    case _ => None
  }
  override def readsRowsOnWrite: Boolean = frame != FrameShape.WholePartition
  override def streamBounds: Option[StreamBounds] = frame match {
    case FrameShape.WholePartition => None
    case FrameShape.RunningRows => Some(StreamBounds.Immediate)
    case FrameShape.RunningRange => Some(StreamBounds.Immediate.copy(waitsForPeers = true))
    case FrameShape.SlidingRows(_, None) => None
    // nth_value finds its row by position in a buffered partition (see SlidingNthValue).
    case _: FrameShape.SlidingRows if function.isInstanceOf[NthValue] => None
    // How many rows a RANGE frame reaches depends on the keys, not on a row count.
    case _: FrameShape.SlidingRange => None
    // A frame from the partition start is recomputed row by row near overflow limits.
    case FrameShape.SlidingRows(None, Some(_)) if SlidingAggregate.recomputesNearLimits(function) =>
      None
    case FrameShape.SlidingRows(lower, Some(upper)) =>
      // One more row of history: the two stacks keep the previous row's frame start.
      Some(StreamBounds.ofOffsets(lower.fold(0L)(_.toLong - 1), upper))
  }
}
