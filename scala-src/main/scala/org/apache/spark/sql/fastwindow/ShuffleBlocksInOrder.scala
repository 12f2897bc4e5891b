package org.apache.spark.sql.fastwindow

import org.apache.spark.{Dependency, OneToOneDependency, Partition, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.execution.metric.SQLShuffleReadMetricsReporter
import org.apache.spark.sql.fastwindow.shims.ShuffleManagerShim

/**
 * The rows of a shuffle read one block at a time in a given order, instead of as the fetches
 * complete: each task reads the blocks `blocks(task)` lists, each a (shuffle partition, map
 * index) pair, one after the other; a task whose entry is null reads `otherwise`'s partition
 * (the same rows through other operators, e.g. sorted). `guard` sees each task's rows read in
 * blocks, with the task's index. The exchange's read metrics count the blocks as its own read
 * counts them.
 */
final class ShuffleBlocksInOrder(
    otherwise: RDD[InternalRow],
    exchange: ShuffleExchangeExec,
    blocks: Array[Array[(Int, Int)]],
    guard: (Int, Iterator[InternalRow]) => Iterator[InternalRow])
  extends RDD[InternalRow](otherwise.context, Nil) {

  private val dependency = exchange.shuffleDependency
  private val readMetrics = exchange.readMetrics

  override protected def getDependencies: Seq[Dependency[_]] =
    Seq(new OneToOneDependency(otherwise), dependency)

  override protected def getPartitions: Array[Partition] = otherwise.partitions

  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] =
    blocks(split.index) match {
      case null => otherwise.iterator(split, context)
      case inOrder =>
        val reporter = new SQLShuffleReadMetricsReporter(
          context.taskMetrics().createTempShuffleReadMetrics(), readMetrics)
        guard(
          split.index,
          inOrder.iterator.flatMap { case (partition, map) =>
            ShuffleManagerShim.managerFor(dependency)
              .getReader[Any, InternalRow](dependency.shuffleHandle, map, map + 1, partition,
                partition + 1, context, reporter)
              .read()
              .map(_._2)
          }
        )
    }
}
