package fastwindow.exec.shared

import org.apache.spark.memory.{MemoryConsumer, MemoryMode, TaskMemoryManager}

/**
 * Accounts what one task holds on the heap to Spark's `TaskMemoryManager`, as execution memory.
 *
 * That is the ordered window's column buffers, frame state and waiting rows, and the hash
 * operators' group state and rows. Growing it reserves memory, which can make other consumers of
 * the task (such as the spillable row buffer's sorter) spill first. What it accounts cannot be
 * written out: when memory is refused, the operator decides (through a [[MemoryBudget]], or the
 * ordered window's `MemoryGovernor`).
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
