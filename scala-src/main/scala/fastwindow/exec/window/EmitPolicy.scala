package fastwindow.exec.window

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

  // Unpacked: `ready` runs twice per row.
  val streams: Boolean = bounds.isDefined
  private val lookahead = bounds.fold(0)(_.lookahead)
  private val history = bounds.fold(0)(_.history)
  private val waitsForPeers = bounds.exists(_.waitsForPeers)

  /**
   * Rows of a partition with `rows` ingested whose results can be written now; `peers` tells
   * where its last peer group starts (asked only when that matters).
   */
  def ready(rows: Int, peers: PeerProgress, complete: Boolean): Int =
    if (complete) rows
    else if (!streams) 0
    else if (waitsForPeers) math.min(rows - lookahead, peers.lastPeerGroupStart)
    else rows - lookahead

  /** The first row a result after the first `emitted` ones may read (of `rows` ingested). */
  def keepFrom(emitted: Int, rows: Int): Long = math.min(emitted.toLong - history, rows - 1L)
}

object EmitPolicy {

  /** The policy of `plan`, streamed when `streaming` allows it and the plan can. */
  def apply(plan: WindowPlan, streaming: Boolean): EmitPolicy =
    new EmitPolicy(if (streaming) plan.streamBounds else None, plan.readsNoRowsOnWrite)

  /**
   * The policy of a range of `plan` spread over tasks, whose seed gives the window's size and
   * each whole frame's state before the range's first row: percent_rank, ntile and whole-frame
   * aggregates, which one task buffers, stream here, cume_dist waiting for its peers (see
   * `FunctionSpec.seededStreamBounds`).
   */
  def seededRange(plan: WindowPlan, streaming: Boolean): EmitPolicy =
    new EmitPolicy(if (streaming) plan.seededStreamBounds else None, plan.readsNoRowsOnWrite)
}
