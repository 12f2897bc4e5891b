package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * How one window function runs when a window without PARTITION BY is spread over ranges of its
 * ORDER BY keys (see [[Spread]]), or why it needs every row in one task: a fact of the function's
 * family (`fastwindow.functions.FunctionFamily.acrossTasks`), from which the planner decides the
 * window's spread.
 */
sealed trait AcrossTasksRole

object AcrossTasksRole {

  /**
   * Its state runs from the first row and starts from the rows before its range: their count
   * (row_number, rank), their peer groups (dense_rank), the window's size (percent_rank,
   * cume_dist, ntile), or the merged state of their aggregates (running, whole and shrinking
   * frames of aggregates whose partial states merge as Spark's row loop folds them).
   */
  case object PrefixState extends AcrossTasksRole

  /**
   * Its result for a row reads only rows a bounded distance away: `before` and `after` rows of
   * the ranges around its own (lag/lead, ROWS frames bounded on both sides); with `nonNullOf`
   * (lag/lead IGNORE NULLS), that many rows where that input has a value, however far.
   */
  final case class HaloRows(before: Int, after: Int, nonNullOf: Option[Expression] = None)
    extends AcrossTasksRole

  /** Over a RANGE frame bounded by value offsets: the rows whose keys its edges reach. */
  final case class RowsInReach(frame: FrameShape.SlidingRange) extends AcrossTasksRole

  /** It needs every row in one task; `why` completes "<function> ...". */
  final case class InOneTask(why: String) extends AcrossTasksRole

  val NotYet: InOneTask = InOneTask("is not yet computed across tasks")

  /** The halo of a frame from `lower` to `upper` rows around the current one. */
  def halo(lower: Int, upper: Int): HaloRows = HaloRows(math.max(0, -lower), math.max(0, upper))

  /** The role of a function that reads only the rows of its `frame`, when it is bounded. */
  def overBoundedFrame(frame: FrameShape): AcrossTasksRole = frame match {
    case FrameShape.SlidingRows(Some(lower), Some(upper)) => halo(lower, upper)
    case r: FrameShape.SlidingRange if !r.edges.contains(RangeEdge.Unbounded) =>
      // Without a value offset (CURRENT ROW on both sides) the frame is the peers, in one range.
      if (r.key.isEmpty) halo(0, 0) else RowsInReach(r)
    case _ => InOneTask("is not yet computed across tasks over this frame (supported: ROWS " +
        "frames bounded on both sides, RANGE frames bounded on both sides, and running, whole " +
        "and shrinking frames from the current row of aggregates whose states merge)")
  }
}
