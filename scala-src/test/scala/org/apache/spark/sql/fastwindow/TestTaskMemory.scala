package org.apache.spark.sql.fastwindow

import org.apache.spark.SparkConf
import org.apache.spark.memory.{TaskMemoryManager, UnifiedMemoryManager}

/**
 * A task's memory manager without a SparkContext, over a memory manager of a given size, for
 * tests of memory accounting. In Spark's package: the memory manager's constructor is
 * `private[spark]`.
 */
object TestTaskMemory {
  final class Task(memory: UnifiedMemoryManager) {
    val manager = new TaskMemoryManager(memory, 0L)

    /** Execution memory held by the task now. */
    def used: Long = memory.executionMemoryUsed
  }

  /** Runs `f` with a task whose JVM has `executionBytes` of execution memory, checking no leak. */
  def withTask[T](executionBytes: Long)(f: Task => T): T = {
    val memory = new UnifiedMemoryManager(new SparkConf(false), executionBytes, 0L, 1)
    val task = new Task(memory)
    try f(task)
    finally {
      val leaked = task.manager.cleanUpAllAllocatedMemory()
      require(leaked == 0L && memory.executionMemoryUsed == 0L, s"task leaked $leaked bytes")
    }
  }
}
