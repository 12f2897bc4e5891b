package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, Expression, SortOrder, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.execution.{ProjectExec, SortExec, SparkPlan}

/**
 * How many distinct ORDER BY values each task of a range shuffle holds: what dense_rank needs of
 * the ranges before its own. Equal values always fall in one range, but the map tasks that
 * summarise a range each see only part of it, and their counts add up only where their values
 * do not overlap ([[ValueRun]]: rows that reach them in order). Otherwise one job reads the
 * shuffle's output again, projects the keys, sorts them by Spark's own sort (its memory
 * accounted, spilling) and counts where the value changes.
 */
object DistinctOrderValues {

  /**
   * For each task of `source` (the range shuffle's output as the operator reads it), the distinct
   * values of `order` per group: one group without PARTITION BY (`groups` None); with it, one
   * per skewed key, the group of a row found by the split's bounds from its split keys (`groups`'
   * expressions: PARTITION BY keys, then ORDER BY), rows of other keys not counted.
   */
  def perTask(source: SparkPlan, order: Seq[SortOrder], numGroups: Int,
      groups: Option[(RangeBounds, Seq[Expression])]): Array[Array[Long]] = {
    val keys = groups.map(_._2).getOrElse(order.map(_.child))
    val projected =
      ProjectExec(keys.zipWithIndex.map { case (k, i) => Alias(k, s"_fastwindow_key$i")() }, source)
    // Any order that puts equal keys next to each other serves: ascending, nulls first.
    val sortOrder = projected.output.map(SortOrder(_, Ascending))
    val bounds = groups.map(_._1)
    val sorted = SortExec(sortOrder, global = false, projected)
    sorted.execute().mapPartitions { rows =>
      val equalKeys = new LazilyGeneratedOrdering(sortOrder, projected.output)
      Iterator(countChanges(rows, numGroups, equalKeys, bounds))
    }.collect()
  }

  /** The number of runs of equal keys among `rows` (sorted) per group. */
  private def countChanges(rows: Iterator[InternalRow], numGroups: Int,
      equalKeys: Ordering[InternalRow], bounds: Option[RangeBounds]): Array[Long] = {
    val counts = new Array[Long](numGroups)
    var previous: UnsafeRow = null
    rows.foreach { row =>
      val keys = row.asInstanceOf[UnsafeRow]
      val group = bounds.fold(0) { b =>
        val slot = b.rangeOf(keys)
        if (slot < 0) -1 else b.groupOf(slot)
      }
      if (group >= 0 && (previous == null || equalKeys.compare(previous, keys) != 0)) {
        counts(group) += 1
        previous = keys.copy()
      }
    }
    counts
  }
}
