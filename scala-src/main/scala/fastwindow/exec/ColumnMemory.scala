package fastwindow.exec

import org.apache.spark.memory.{MemoryConsumer, MemoryMode, TaskMemoryManager}

/**
 * Accounts one task's columnar buffers, frame state and waiting rows to Spark's
 * `TaskMemoryManager`, so the memory they hold counts as execution memory: growing them reserves
 * memory, which can make other consumers of the task (such as the spillable row buffer's sorter)
 * spill first.
 *
 * The buffers themselves cannot be written out. When the memory manager refuses a reservation,
 * the caller decides: a window partition none of whose rows has been returned yet is handed to
 * Spark's own window evaluation (see [[WindowPartitionIterator]]), which needs only the rows.
 */
final class ColumnMemory(taskMemoryManager: TaskMemoryManager)
  extends MemoryConsumer(taskMemoryManager, MemoryMode.ON_HEAP) {

  private var reserved = 0L

  /**
   * Reserves what `bytes` need beyond what is already reserved; false when the memory manager
   * grants less (what it did grant stays reserved until `release`).
   */
  def reserve(bytes: Long): Boolean = bytes <= reserved || {
    val wanted = bytes - reserved
    val granted = acquireMemory(wanted)
    reserved += granted
    granted >= wanted
  }

  /** Column buffers cannot be written out; other consumers spill instead. */
  override def spill(size: Long, trigger: MemoryConsumer): Long = 0L

  /**
   * Returns every reservation: when a partition's buffers are dropped, and at task end (also on
   * failure or cancellation). Idempotent.
   */
  def release(): Unit = if (reserved > 0) {
    freeMemory(reserved)
    reserved = 0
  }
}
