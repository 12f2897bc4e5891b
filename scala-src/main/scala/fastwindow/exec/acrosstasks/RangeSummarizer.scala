package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering

/**
 * Summarises the rows of one range offered one by one, in any order (no sort): counts them,
 * folds the seeded aggregates (an overflow is recorded, not thrown: the combine then folds in the
 * window's order, see [[RangeSeeds]]), and keeps the first and last rows by the shape's order in
 * two bounded arrays (copying only the rows that enter them).
 */
final class RangeSummarizer(shape: SummaryShape, ordering: Ordering[InternalRow],
    valueOrdering: Option[Ordering[InternalRow]], input: Seq[Attribute]) {
  private val first = new FirstRows(shape.keptFirst, ordering, reverse = false)
  private val last = new FirstRows(shape.keptLast, ordering, reverse = true)
  private val values = valueOrdering.map(new ValueRunTracker(_, shape.maxValueRuns)).orNull
  private val acc = shape.fold.map(f => f.folder(f.initialState)).orNull
  private val deciding = shape.fold.filter(_.decidedByRows.nonEmpty)
    .map(f => new DecidingRows(f.decidedByRows, ordering, input)).orNull
  private val nonNull =
    if (shape.nonNull.isEmpty) null else new DecidingRows(shape.nonNull, ordering, input)
  private val reach = shape.reach.orNull
  private val run = shape.runKey.map(new KeyRunTracker(_)).orNull
  private var count = 0L
  private var overflowed = false
  private var wraps = false

  def offer(row: InternalRow): Unit = {
    val unsafe = row.asInstanceOf[UnsafeRow]
    first.offer(unsafe, count)
    last.offer(unsafe, count)
    if (values != null) values.offer(unsafe)
    if (deciding != null) deciding.offer(unsafe, count)
    if (nonNull != null) nonNull.offer(unsafe, count)
    if (reach != null && !wraps) wraps = reach.wraps(row)
    if (run != null) run.offer(unsafe)
    count += 1
    if (acc != null && !overflowed) {
      try acc.update(row)
      catch { case _: ArithmeticException => overflowed = true }
    }
  }

  def result: RangeSummary = {
    val decided = if (deciding == null) Array.empty[Array[UnsafeRow]] else deciding.result
    RangeSummary(
      count,
      if (overflowed || acc == null) null else shape.fold.get.withStatesOf(acc.state, decided),
      overflowed,
      first.sorted,
      last.sorted,
      if (values == null) null else values.result,
      decided,
      if (nonNull == null) Array.empty[Array[UnsafeRow]] else nonNull.result,
      wraps,
      if (run == null) null else run.result
    )
  }
}

object RangeSummarizer {

  /**
   * The summaries of one task's rows (as the shuffle delivers them: one pass, no sort), one per
   * group: without PARTITION BY one (`groups` None); with it one per skewed key, a row's key
   * found by the `groups` bounds from its keys (their expressions), rows of other keys skipped.
   */
  def summarize(shape: SummaryShape, input: Seq[Attribute], rows: Iterator[InternalRow],
      numGroups: Int, groups: Option[(RangeBounds, Seq[Expression])]): Array[RangeSummary] = {
    val ordering = new LazilyGeneratedOrdering(shape.order, input)
    val valueOrdering = shape.valueOrdering(input)
    val summarizers =
      Array.fill(numGroups)(new RangeSummarizer(shape, ordering, valueOrdering, input))
    groups match {
      case None => rows.foreach(summarizers(0).offer)
      case Some((bounds, keys)) =>
        val keysOf = UnsafeProjection.create(keys, input)
        rows.foreach { row =>
          val slot = bounds.rangeOf(keysOf(row))
          if (slot >= 0) summarizers(bounds.groupOf(slot)).offer(row)
        }
    }
    summarizers.map(_.result)
  }
}
