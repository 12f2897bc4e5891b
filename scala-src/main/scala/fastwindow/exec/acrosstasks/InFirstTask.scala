package fastwindow.exec.acrosstasks

import scala.reflect.ClassTag

import org.apache.spark.{NarrowDependency, Partition, TaskContext}
import org.apache.spark.rdd.RDD

/**
 * Every partition of `parts` read by the first task, the others empty: a window's ranges
 * evaluated as one, when they cannot be evaluated apart (see [[RangedEvaluation]]). Ranges are
 * sorted and in the ORDER BY's order, so their rows in turn are the whole window's sorted rows,
 * the input Spark's one task reads; each range's rows are read (and sorted) only when the one
 * before has been, as a coalesced RDD reads its parents. Partitions that are each sorted but not
 * ranges (another rule replaced the range shuffle) are merged by `merge` instead, ties in
 * partition order. The partition count is kept, so what the operator reports of its output (the
 * ranges' partitioning) stays true.
 */
final class InFirstTask[T: ClassTag](parts: RDD[T], merge: Option[Ordering[T]] = None)
  extends RDD[T](
    parts.context,
    Seq(new NarrowDependency[T](parts) {
      override def getParents(partitionId: Int): Seq[Int] =
        if (partitionId == 0) parts.partitions.indices else Nil
    })
  ) {

  override protected def getPartitions: Array[Partition] = {
    val parents = parts.partitions
    Array.tabulate(parents.length) { i =>
      InFirstTask.Part(i, if (i == 0) parents else Array.empty[Partition])
    }
  }

  override def compute(split: Partition, context: TaskContext): Iterator[T] = {
    val parents = split.asInstanceOf[InFirstTask.Part].parents
    merge match {
      case None => parents.iterator.flatMap(p => firstParent[T].iterator(p, context))
      case Some(ordering) =>
        InFirstTask.merged(parents.map(p => firstParent[T].iterator(p, context)), ordering)
    }
  }
}

object InFirstTask {
  private final case class Part(index: Int, parents: Array[Partition]) extends Partition

  /**
   * The rows of `sorted` iterators in one order, ties in the iterators' order. A row is valid
   * until the next is asked for (the iterator it came from moves on only then).
   */
  def merged[T](sorted: Seq[Iterator[T]], ordering: Ordering[T]): Iterator[T] =
    new Iterator[T] {
      // (head row, iterator index), least first.
      private val heads = new java.util.PriorityQueue[(T, Int)](math.max(sorted.length, 1),
        (a: (T, Int), b: (T, Int)) => {
          val c = ordering.compare(a._1, b._1)
          if (c != 0) c else Integer.compare(a._2, b._2)
        })
      private var last = -1
      sorted.indices.foreach(i => if (sorted(i).hasNext) heads.add((sorted(i).next(), i)))

      private def advanceLast(): Unit = if (last >= 0) {
        if (sorted(last).hasNext) heads.add((sorted(last).next(), last))
        last = -1
      }
      override def hasNext: Boolean = !heads.isEmpty || (last >= 0 && sorted(last).hasNext)
      override def next(): T = {
        advanceLast()
        val (row, i) = heads.poll()
        last = i
        row
      }
    }
}
