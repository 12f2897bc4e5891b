package fastwindow.exec

import fastwindow.model.{StreamBounds, WindowPlan}

/**
 * When a partition's rows can be returned and dropped: the rules a streaming operator follows
 * (and the tests replay exactly, to run every kernel the streaming way).
 *
 * With `bounds` (see [[StreamBounds]]), row i's results can be written once the next `lookahead`
 * rows (or, waiting for peers, the rest of its peer group) have been ingested, and after `emitted`
 * rows have been written no later result reads a row before `emitted - history`. Without bounds
 * nothing is written before the partition is complete. `dropsRowsOnIngest`: no result reads a
 * buffered row (only whole-partition aggregates, row_number, ntile), so each row can be dropped
 * right after it is ingested, even in a buffered partition.
 */
final class EmitPolicy(bounds: Option[StreamBounds], val dropsRowsOnIngest: Boolean)
  extends Serializable {

  def streams: Boolean = bounds.isDefined

  /** Rows of a partition with `rows` ingested whose results can be written now. */
  def ready(rows: Int, lastPeerGroupStart: Int, complete: Boolean): Int =
    if (complete) rows
    else bounds match {
      case None => 0
      case Some(b) if b.waitsForPeers => math.min(rows - b.lookahead, lastPeerGroupStart)
      case Some(b) => rows - b.lookahead
    }

  /** The first row a result after the first `emitted` ones may read (of `rows` ingested). */
  def keepFrom(emitted: Int, rows: Int): Long =
    math.min(emitted.toLong - bounds.fold(0)(_.history), rows - 1L)
}

object EmitPolicy {
  /** The policy of `plan`, streamed when `streaming` allows it and the plan can. */
  def apply(plan: WindowPlan, streaming: Boolean): EmitPolicy =
    new EmitPolicy(if (streaming) plan.streamBounds else None, plan.readsNoRowsOnWrite)
}
