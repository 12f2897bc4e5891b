package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering

import fastwindow.config.FastWindowLimits
import fastwindow.exec.shared.IntegralOrderKey
import fastwindow.model.Spread

/**
 * What a summary is made of: the seeded aggregates' fold, the order of the rows within a range
 * (the window's ORDER BY, then the tie-break `RangeOrder` adds when halo rows are handed on), how
 * many first and last rows it keeps, the order whose distinct values it follows (the window's
 * ORDER BY, with PARTITION BY its keys first, when dense_rank needs them; else empty) and in
 * how many runs of rows in order at most, the rows with a value it keeps for lag/lead IGNORE
 * NULLS, and for RANGE frames bounded by value offsets the check of their keys and how many
 * more first and last rows it keeps for them
 * (`reachRows`: as many as it can, a range that reaches further making them run in one task),
 * and the first ORDER BY key whose runs a map task follows (`runKey`, see [[BlocksInOrder]]).
 */
final case class SummaryShape(
    fold: Option[StateFold],
    order: Seq[SortOrder],
    firstRows: Int,
    lastRows: Int,
    valueOrder: Seq[SortOrder] = Nil,
    maxValueRuns: Int,
    nonNull: Seq[DecidingRow] = Nil,
    reach: Option[ReachedRows] = None,
    reachRows: Int = 0,
    runKey: Option[IntegralOrderKey] = None) {

  def keptFirst: Int = math.max(firstRows, reachRows)
  def keptLast: Int = math.max(lastRows, reachRows)

  /** The rows a range's summary must hold besides its count and state, at most. */
  def rowsNeeded: Int = firstRows + lastRows + nonNull.map(_.rows).sum

  /** The rows a range's summary holds besides its count and state, at most. */
  def rowsKept: Int = keptFirst + keptLast + nonNull.map(_.rows).sum

  /** The ordering of `valueOrder` over rows of `input`, when it has one. */
  def valueOrdering(input: Seq[Attribute]): Option[Ordering[InternalRow]] =
    if (valueOrder.isEmpty) None else Some(new LazilyGeneratedOrdering(valueOrder, input))
}

object SummaryShape {

  /**
   * The shape of the summaries a window spread over ranges reads: the rows its halo functions
   * (if any) read around each range, by count, by value (with the key check), or with a value.
   */
  def of(fold: Option[StateFold], order: Seq[SortOrder], halos: Option[Spread.Halos],
      valueOrder: Seq[SortOrder], input: Seq[Attribute]): SummaryShape =
    SummaryShape(
      fold,
      order,
      halos.fold(0)(_.firstRows),
      halos.fold(0)(_.lastRows),
      valueOrder,
      FastWindowLimits.ACROSS_TASKS_MAX_VALUE_RUNS.get(),
      halos.fold(Seq.empty[DecidingRow])(h => DecidingRows.forNonNullHalos(h.nonNull)),
      halos.flatMap(_.reach).map(new ReachedRows(_, input)),
      halos.flatMap(_.reach).fold(0)(_.rows)
    )
}
