package fastwindow.frames

import fastwindow.model.{FrameShape, RangeEdge}
import fastwindow.ops.RangeEdgeOps

/**
 * Finds row i's frame, as buffered rows `[first, last]` (empty when first > last), for sliding
 * frames. Rows are located in order, and neither edge ever moves back, which is what lets the
 * frame algorithms built on it ([[TwoStacks]], [[NthRow]]) run in O(n) per partition.
 */
sealed trait FrameLocator {
  var first: Int = 0
  var last: Int = -1
  def reset(): Unit = {}
  def locate(i: Int, n: Int): Unit
  def shift(d: Int): Unit = {}
}

object FrameLocator {

  /**
   * The locator of a sliding frame; `edges` holds the ops of its value-offset RANGE edges, the
   * lower one first (as [[FrameShape.SlidingRange.edges]] lists them).
   */
  def apply(frame: FrameShape, edges: Seq[RangeEdgeOps], peers: PeerGroups): FrameLocator =
    frame match {
      case f: FrameShape.SlidingRows => new RowsLocator(f, peers)
      case f: FrameShape.SlidingRange =>
        val offsets = edges.iterator
        def opsOf(edge: RangeEdge) = edge match {
          case _: RangeEdge.Offset => Some(offsets.next())
          case _ => None
        }
        val lowerOps = opsOf(f.lower)
        new RangeLocator(f.lower, lowerOps, f.upper, opsOf(f.upper), peers)
      case FrameShape.WholePartition | FrameShape.RunningRows | FrameShape.RunningRange =>
        throw new IllegalArgumentException(s"$frame is not a sliding frame")
    }
}

/**
 * ROWS frames ([[FrameShape.SlidingRows]]): buffered row i's frame, while n rows are buffered from
 * partition position `peers.base` on, is rows i + lower .. i + upper clipped to the partition,
 * whose start is buffered row `-base`. Long arithmetic: offsets may be near Int.MaxValue.
 */
final class RowsLocator(frame: FrameShape.SlidingRows, peers: PeerGroups) extends FrameLocator {
  private val fromStart = frame.lower.isEmpty
  private val lower = frame.lower.fold(0L)(_.toLong)
  private val toEnd = frame.upper.isEmpty
  private val upper = frame.upper.fold(0L)(_.toLong)

  override def locate(i: Int, n: Int): Unit = {
    val base = peers.base
    first = if (fromStart) -base else math.max(-base.toLong, math.min(n.toLong, i + lower)).toInt
    last = if (toEnd) n - 1 else math.max(-1L - base, math.min(n - 1L, i + upper)).toInt
  }
}

/**
 * RANGE frames over a buffered partition: the frame is `[lo, hi)`, two pointers that only move
 * forward. The upper pointer passes every row whose key compares at or before the upper edge
 * value; the lower one passes the rows (already inside the frame) whose key compares before the
 * lower edge value; CURRENT ROW edges are the peer group's.
 *
 * This is the loop of Spark's sliding, growing and shrinking frames, and it computes an edge
 * value exactly when Spark does: the upper one while rows remain beyond the frame, the lower one
 * while the frame holds rows. An edge that overflows under ANSI therefore fails the query exactly
 * where Spark's fails, and one Spark never computes fails nowhere. Keys compare with Spark's
 * ordering (see [[RangeEdgeOps]]), so a null key's frame is the partition's null keys.
 */
final class RangeLocator(
    lower: RangeEdge,
    lowerOffset: Option[RangeEdgeOps],
    upper: RangeEdge,
    upperOffset: Option[RangeEdgeOps],
    peers: PeerGroups)
  extends FrameLocator {

  private var lo = 0
  private var hi = 0

  override def reset(): Unit = { lo = 0; hi = 0 }

  override def locate(i: Int, n: Int): Unit = {
    upper match {
      case RangeEdge.Unbounded => hi = n
      case RangeEdge.CurrentRow => hi = math.max(hi, peers.end)
      case _: RangeEdge.Offset =>
        if (hi < n) {
          val edge = upperOffset.get
          edge.setEdge(i)
          while (hi < n && edge.compareToEdge(hi) <= 0) hi += 1
        }
    }
    lower match {
      case RangeEdge.Unbounded => lo = 0
      case RangeEdge.CurrentRow => lo = math.max(lo, math.min(peers.start, hi))
      case _: RangeEdge.Offset =>
        if (lo < hi) {
          val edge = lowerOffset.get
          edge.setEdge(i)
          while (lo < hi && edge.compareToEdge(lo) < 0) lo += 1
        }
    }
    first = lo
    last = hi - 1
  }
}
