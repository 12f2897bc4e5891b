package fastwindow.frames

import fastwindow.ops.PeerKeys

/**
 * Where the evaluator is in the current partition, for kernels that need more than the buffered
 * row index: `base` is the partition position of buffered row 0 (rows before it were dropped
 * while streaming), and the current row's peer group (rows with equal ORDER BY keys) starts at
 * buffered row `start` and ends before `end`, and is the partition's `index`-th group.
 *
 * Peer breaks are recorded as rows are ingested ([[ingested]]); [[advance]] must be called for
 * i = 0, 1, ... in order, and finding each group's end scans the group once, so the whole
 * partition costs O(n). While streaming, `end` is only final once the group's last row has
 * arrived; only kernels that wait for complete peer groups read it. Without `tracksPeers` (no
 * function needs peers) only `base` is kept. `rowsBefore` counts the rows of the window before
 * the partition (a range of a window spread over tasks; 0 otherwise), for the positions ranks
 * report.
 */
final class PeerGroups(tracksPeers: Boolean) {
  var base: Int = 0

  /** Rows of the window before this partition (set after `reset`; see above). */
  var rowsBefore: Int = 0

  /** Rows of the whole window when the partition is a range of it (else 0: the partition's). */
  var windowRows: Int = 0

  /** Peer groups of the window before this partition (as `rowsBefore`), for dense ranks. */
  var groupsBefore: Int = 0

  /** Whether buffered row i starts a peer group (always for the partition's first row). */
  private var breaks: Array[Boolean] = new Array[Boolean](16)

  /** First buffered row of the current row's peer group. */
  var start: Int = 0

  /** One past the last buffered row of the current row's peer group. */
  var end: Int = 0

  /** 1-based number of the current peer group within the partition (dense rank). */
  var index: Int = 0

  /** First buffered row of the last group ingested (maybe still growing). */
  var lastGroupStart: Int = 0

  def reset(): Unit = {
    base = 0
    rowsBefore = 0
    windowRows = 0
    groupsBefore = 0
    start = 0
    end = 0
    index = 0
    lastGroupStart = 0
  }

  /** Makes room for `capacity` buffered rows. */
  def grow(capacity: Int): Unit =
    if (tracksPeers) breaks = java.util.Arrays.copyOf(breaks, capacity)

  /** Records buffered row r, comparing its keys with row r - 1's. */
  def ingested(r: Int, keys: PeerKeys): Unit = if (tracksPeers) {
    val break = base + r == 0 || !keys.same(r, r - 1)
    breaks(r) = break
    if (break) lastGroupStart = r
  }

  /**
   * A cursor of its own over the same ingested rows, for a kernel that walks a complete
   * partition's peer groups before the evaluator does (from `reset` state, `advance` from 0).
   */
  def replay(): PeerGroups = {
    val walk = new PeerGroups(tracksPeers)
    walk.breaks = breaks
    walk.base = base
    walk
  }

  def advance(i: Int, n: Int): Unit = {
    if (tracksPeers && breaks(i)) {
      start = i
      var e = i + 1
      while (e < n && !breaks(e)) e += 1
      end = e
      index += 1
    }
  }

  /** Forgets the first `d` buffered rows, keeping the `kept` rows after them. */
  def shift(d: Int, kept: Int): Unit = {
    if (tracksPeers) System.arraycopy(breaks, d, breaks, 0, kept)
    base += d
    start -= d
    end -= d
    lastGroupStart -= d
  }
}
