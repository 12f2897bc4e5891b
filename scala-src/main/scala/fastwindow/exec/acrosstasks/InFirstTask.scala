package fastwindow.exec.acrosstasks

import scala.reflect.ClassTag

import org.apache.spark.{NarrowDependency, Partition, TaskContext}
import org.apache.spark.rdd.RDD

/**
 * Every partition of `ranges` read in order by the first task, the others empty: a window's
 * ranges evaluated as one, when they cannot be evaluated apart (see [[RangedEvaluation]]). The
 * ranges are sorted and in the ORDER BY's order, so their rows in turn are the whole window's
 * sorted rows, the input Spark's one task reads; the partition count is kept, so what the
 * operator reports of its output (the ranges' partitioning) stays true. Each range's rows are
 * read (and sorted) only when the one before has been, as a coalesced RDD reads its parents.
 */
final class InFirstTask[T: ClassTag](ranges: RDD[T])
  extends RDD[T](
    ranges.context,
    Seq(new NarrowDependency[T](ranges) {
      override def getParents(partitionId: Int): Seq[Int] =
        if (partitionId == 0) ranges.partitions.indices else Nil
    })
  ) {

  override protected def getPartitions: Array[Partition] = {
    val parents = ranges.partitions
    Array.tabulate(parents.length) { i =>
      InFirstTask.Part(i, if (i == 0) parents else Array.empty[Partition])
    }
  }

  override def compute(split: Partition, context: TaskContext): Iterator[T] =
    split.asInstanceOf[InFirstTask.Part].parents.iterator
      .flatMap(p => firstParent[T].iterator(p, context))
}

object InFirstTask {
  private final case class Part(index: Int, parents: Array[Partition]) extends Partition
}
