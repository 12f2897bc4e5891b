package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.{Expression, SortOrder}

/**
 * The frames fastwindow evaluates, named by shape (the algorithm follows from the shape). Every
 * property a shape has is a member here, and matches over shapes name every shape (no catch-all):
 * the build makes a non-exhaustive match an error (`-Wconf` in build.sbt), so adding a shape is a
 * compile error wherever it is not yet handled.
 */
sealed abstract class FrameShape(val sql: String) extends Serializable {

  /** Whether the frame's edges depend on peer groups (rows with equal ORDER BY keys). */
  def needsPeers: Boolean

  /**
   * How an aggregate over this frame streams (see [[StreamBounds]]): None when it needs the
   * partition buffered. One more row of history for sliding frames: the two stacks keep the
   * previous row's frame start.
   */
  def aggregateStreamBounds: Option[StreamBounds]

  /**
   * How an aggregate streaming as `unseeded` in one task streams over a seeded range of a window
   * spread over tasks: a whole frame's seed holds every row's state, so its result is known before
   * the range's first row (`AggregateKernel.WholePartition`).
   */
  def seededStreamBounds(unseeded: Option[StreamBounds]): Option[StreamBounds] =
    if (this == FrameShape.WholePartition) Some(StreamBounds.Immediate) else unseeded

  /** The ORDER BY value a RANGE frame with offsets reads for its edges, as a column to extract. */
  def rangeKeyInput: Option[Expression] = rangeKey.map(_.child)

  /** The single ORDER BY key of a RANGE frame whose edges are value offsets. */
  def rangeKey: Option[SortOrder] = this match {
    case r: FrameShape.SlidingRange => r.key
    case FrameShape.WholePartition | FrameShape.RunningRows | FrameShape.RunningRange |
        _: FrameShape.SlidingRows => None
  }

  /**
   * From the current row (ROWS) or its peer group (RANGE) to the partition's end: a frame that
   * never reaches before the current row's group and always reaches the partition's last row, so
   * over a range of a window spread over tasks it is a suffix of the range followed by every row
   * of the ranges after it.
   */
  def shrinksFromCurrentRow: Boolean = this match {
    case FrameShape.SlidingRows(Some(0), None) => true
    case FrameShape.SlidingRange(RangeEdge.CurrentRow, RangeEdge.Unbounded, _, _) => true
    case FrameShape.WholePartition | FrameShape.RunningRows | FrameShape.RunningRange |
        _: FrameShape.SlidingRows | _: FrameShape.SlidingRange => false
  }

  /** Frames that slide with the current row (both edges move forward), see `TwoStacks`. */
  def isSliding: Boolean = this match {
    case _: FrameShape.SlidingRows | _: FrameShape.SlidingRange => true
    case FrameShape.WholePartition | FrameShape.RunningRows | FrameShape.RunningRange => false
  }
}

object FrameShape {

  /** UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING (ROWS or RANGE): one result per partition. */
  case object WholePartition extends FrameShape("UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING") {
    override def needsPeers: Boolean = false
    override def aggregateStreamBounds: Option[StreamBounds] = None
  }

  /** ROWS UNBOUNDED PRECEDING AND CURRENT ROW: accumulate one row at a time. */
  case object RunningRows extends FrameShape("ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW") {
    override def needsPeers: Boolean = false
    override def aggregateStreamBounds: Option[StreamBounds] = Some(StreamBounds.Immediate)
  }

  /** RANGE UNBOUNDED PRECEDING AND CURRENT ROW: accumulate a whole group of peers at a time. */
  case object RunningRange extends FrameShape("RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW") {
    override def needsPeers: Boolean = true
    override def aggregateStreamBounds: Option[StreamBounds] =
      Some(StreamBounds.Immediate.copy(waitsForPeers = true))
  }

  /**
   * Any other ROWS frame: rows `i + lower .. i + upper` of the partition for row i (negative
   * offsets precede it; `None` is UNBOUNDED), clipped to the partition, possibly empty. Both
   * bounds only move forward as i grows, so the frame slides: moving, shrinking and offset frames.
   */
  final case class SlidingRows(lower: Option[Int], upper: Option[Int])
    extends FrameShape(s"ROWS BETWEEN ${boundSql(lower, "UNBOUNDED PRECEDING")} AND " +
      boundSql(upper, "UNBOUNDED FOLLOWING")) {
    override def needsPeers: Boolean = false
    override def aggregateStreamBounds: Option[StreamBounds] =
      upper.map(u => StreamBounds.ofOffsets(lower.fold(0L)(_.toLong - 1), u))
  }

  /**
   * Any RANGE frame other than the whole partition and the running one: the rows whose order key
   * lies between row i's lower and upper edges (see [[RangeEdge]]), found by two pointers that
   * only move forward. `key` is the single ORDER BY key when an edge is a value offset. How far
   * such a frame reaches depends on the keys, not on a row count, so it is never streamed.
   */
  final case class SlidingRange(
      lower: RangeEdge,
      upper: RangeEdge,
      key: Option[SortOrder],
      override val sql: String)
    extends FrameShape(sql) {
    def edges: Seq[RangeEdge] = Seq(lower, upper)
    override def needsPeers: Boolean = edges.contains(RangeEdge.CurrentRow)
    override def aggregateStreamBounds: Option[StreamBounds] = None
  }

  private def boundSql(offset: Option[Int], unbounded: String): String = offset match {
    case None => unbounded
    case Some(0) => "CURRENT ROW"
    case Some(o) if o < 0 => s"${-o.toLong} PRECEDING"
    case Some(o) => s"$o FOLLOWING"
  }
}
