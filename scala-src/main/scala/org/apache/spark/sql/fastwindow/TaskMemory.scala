package org.apache.spark.sql.fastwindow

import org.apache.spark.{SparkEnv, TaskContext}
import org.apache.spark.memory.TaskMemoryManager

/** Reaches Spark's memory managers, which Spark only exposes inside its own packages. */
object TaskMemory {

  /** The running task's memory manager (None outside a task). */
  def manager: Option[TaskMemoryManager] = Option(TaskContext.get()).map(_.taskMemoryManager())

  /** Execution memory currently reserved in this JVM, by every task (tests check it drops to 0). */
  def executionMemoryUsed: Long = SparkEnv.get.memoryManager.executionMemoryUsed
}
