package fastwindow.exec

import org.apache.spark.memory.{MemoryConsumer, MemoryMode, TaskMemoryManager}
import org.slf4j.LoggerFactory

/**
 * Accounts one task's columnar buffers and waiting rows to Spark's `TaskMemoryManager`, so the
 * memory they hold counts as execution memory: growing them reserves memory, which can make
 * other consumers of the task (such as the spillable row buffer's sorter) spill first.
 *
 * The buffers themselves do not spill: streamed partitions keep them O(frame), and a buffered
 * partition keeps a few primitive values per row of its function inputs, far less than the rows
 * Spark's own buffer holds. If the memory manager cannot grant a reservation, the buffers are
 * kept anyway (failing the task would be worse than Spark) and a warning says so, once per task.
 */
final class ColumnMemory(taskMemoryManager: TaskMemoryManager)
  extends MemoryConsumer(taskMemoryManager, MemoryMode.ON_HEAP) {

  private var reserved = 0L
  private var warned = false
  /** The most bytes held at once. */
  var peak = 0L

  /**
   * Records that the buffers now hold `bytes`, reserving any growth. Once a reservation is refused
   * no more are asked for in this task: each request makes the memory manager spill the task's
   * other consumers (the spillable row buffer) first, and asking again as the columns grow would
   * spill that buffer over and over in slivers, leaving it hundreds of tiny spill files to read.
   */
  def track(bytes: Long): Unit = {
    peak = math.max(peak, bytes)
    if (bytes > reserved && !warned) {
      val wanted = bytes - reserved
      val granted = acquireMemory(wanted)
      reserved += granted
      if (granted < wanted) {
        warned = true
        ColumnMemory.log.warn(s"fastwindow: Spark's memory manager granted $granted of $wanted " +
          s"bytes for window column buffers ($bytes bytes in all); they stay on the heap " +
          "unaccounted. Raise spark.executor.memory or lower the partition size if tasks fail.")
      }
    }
  }

  /** Column buffers cannot be written out; other consumers spill instead. */
  override def spill(size: Long, trigger: MemoryConsumer): Long = 0L

  /** Returns every reservation (at task end, also on failure or cancellation). Idempotent. */
  def release(): Unit = if (reserved > 0) {
    freeMemory(reserved)
    reserved = 0
  }
}

object ColumnMemory {
  private val log = LoggerFactory.getLogger(classOf[ColumnMemory])
}
