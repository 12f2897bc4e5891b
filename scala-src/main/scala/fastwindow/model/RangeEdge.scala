package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.Expression

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
