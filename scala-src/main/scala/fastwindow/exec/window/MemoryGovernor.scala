package fastwindow.exec.window

import org.slf4j.LoggerFactory

import fastwindow.exec.shared.ColumnMemory

/**
 * Decides whether a partition's buffers may stay in memory, and accounts them to Spark.
 *
 * The buffers are its columns, frame state and waiting rows, accounted to Spark's
 * `TaskMemoryManager` (through
 * [[fastwindow.exec.shared.ColumnMemory]]) and to `spark.fastwindow.memory.maxPartitionBytes`
 * (`maxPartitionBytes`, 0: no limit).
 *
 * These buffers cannot be written out. When they do not fit, a partition none of whose rows has
 * been returned is handed to Spark's own window evaluation (the caller does it, see
 * [[WindowPartitionIterator]]); one that already returned rows (a streamed one, whose buffers stay
 * O(frame) unless a huge group of ties holds them), or a seeded range of a window spread over
 * tasks (which holds a group of ties at most), keeps its buffers, unaccounted, with a warning,
 * and is not asked again: every refused request makes the memory manager spill the row buffer
 * again, in ever smaller pieces.
 */
final class MemoryGovernor(memory: Option[ColumnMemory], maxPartitionBytes: Long) {
  import MemoryGovernor.log

  /** Spark refused memory for this partition after rows of it were returned. */
  private var unaccounted = false
  private var warnedUnaccounted = false
  private var warnedHandOver = false
  private var peakBytes = 0L

  /** What the last check asked to account. */
  private var needed = 0L

  def startPartition(): Unit = unaccounted = false

  /** The largest `held` seen by `mustHandOver`. */
  def peak: Long = peakBytes

  /**
   * Accounts `held` bytes plus `toCome` (frame state the partition's results will build) and
   * tells whether the partition must be handed over; `canHandOver` when none of its rows has been
   * returned. `rows`: the partition's rows so far, for the warning.
   */
  def mustHandOver(held: Long, toCome: Long, canHandOver: Boolean, rows: Int): Boolean = {
    peakBytes = math.max(peakBytes, held)
    needed = held + toCome
    val fits = (maxPartitionBytes <= 0 || needed <= maxPartitionBytes) &&
      (unaccounted || memory.forall(_.reserve(needed)))
    if (fits) false
    else if (canHandOver) {
      if (!warnedHandOver) {
        warnedHandOver = true
        log.warn(s"fastwindow: a window partition of at least $rows rows needs more memory for " +
          s"its column buffers and frame state $limit; it is evaluated by Spark's own window " +
          "frames over its spillable rows (same results, slower). Later such partitions of this " +
          "task are handed over without another warning.")
      }
      true
    } else {
      if (!unaccounted && !warnedUnaccounted) {
        warnedUnaccounted = true
        log.warn(s"fastwindow: a window partition's column buffers need $held bytes, more " +
          s"$limit, after some of its rows were returned (or in a range of a window spread " +
          "over tasks, which only fastwindow can evaluate); they stay on the heap unaccounted. " +
          "Raise spark.executor.memory or lower the partition size if tasks fail.")
      }
      unaccounted = true
      false
    }
  }

  /** Which limit the buffers ran into, for warnings. */
  private def limit: String =
    if (maxPartitionBytes > 0 && needed > maxPartitionBytes) {
      s"than spark.fastwindow.memory.maxPartitionBytes=$maxPartitionBytes allows"
    } else "than Spark's memory manager grants the task"

  /** Returns every reservation (a partition's buffers were dropped, or the task ends). */
  def release(): Unit = memory.foreach(_.release())
}

object MemoryGovernor {
  private val log = LoggerFactory.getLogger(classOf[MemoryGovernor])
}
