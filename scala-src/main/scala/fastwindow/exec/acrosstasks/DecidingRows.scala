package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeProjection, UnsafeRow}

import fastwindow.model.Spread

/**
 * For each aggregate of a range whose state is that of a few rows ([[StateFold.decidedByRows]]),
 * those rows among the rows offered, by the window's order then by arrival: the last one (or the
 * first `rows`) whose input counts (is not null, with IGNORE NULLS), in the window's order.
 */
private[acrosstasks] final class DecidingRows(specs: Seq[DecidingRow],
    ordering: Ordering[InternalRow], input: Seq[Attribute]) {
  private val inputs = specs.map { d =>
    if (d.ignoreNulls) UnsafeProjection.create(Seq(d.input), input) else null
  }.toArray
  private val kept = specs.map(d => new FirstRows(d.rows, ordering, reverse = d.last)).toArray

  def offer(row: UnsafeRow, arrival: Long): Unit = {
    var i = 0
    while (i < kept.length) {
      if (inputs(i) == null || !inputs(i)(row).isNullAt(0)) kept(i).offer(row, arrival)
      i += 1
    }
  }

  def result: Array[Array[UnsafeRow]] = kept.map(_.sorted)
}

object DecidingRows {

  /**
   * Each spec's deciding rows of the parts of one range together, from theirs (`parts` in their
   * order, which is not the window's; a stable sort: ties keep the parts' order).
   */
  def of(parts: Seq[Array[Array[UnsafeRow]]], specs: Seq[DecidingRow],
      ordering: Ordering[InternalRow]): Array[Array[UnsafeRow]] =
    specs.indices.map { i =>
      val rows = parts.flatMap(_(i)).sorted(ordering)
      if (specs(i).last) rows.takeRight(specs(i).rows).toArray
      else rows.take(specs(i).rows).toArray
    }.toArray

  /** The rows a range keeps for lag/lead IGNORE NULLS: per input, its last and first with a value. */
  def forNonNullHalos(halos: Seq[Spread.NonNullHalo]): Seq[DecidingRow] = halos.flatMap { h =>
    Seq(DecidingRow(-1, last = true, ignoreNulls = true, h.input, h.before),
      DecidingRow(-1, last = false, ignoreNulls = true, h.input, h.after)).filter(_.rows > 0)
  }

  /**
   * The halo rows lag/lead IGNORE NULLS read next to a range: for each spec that looks that way
   * (`before`: the last rows of the ranges before, else the first of those after), its rows with
   * a value from the nearest ranges outwards (`ranges`, each one's kept rows per spec), as many as
   * it reads; then every spec's rows together in the window's order, a row kept by several specs
   * once (rows equal under the total order of [[RangeOrder]] are equal in every column: as many
   * copies as the spec that kept most).
   */
  def nearest(ranges: () => Iterator[Array[Array[UnsafeRow]]], specs: Seq[DecidingRow],
      before: Boolean, ordering: Ordering[InternalRow]): Array[UnsafeRow] = {
    val perSpec = specs.indices.filter(i => specs(i).last == before).map { i =>
      var taken = List.empty[Array[UnsafeRow]]
      var need = specs(i).rows
      val it = ranges()
      while (need > 0 && it.hasNext) {
        val rows = it.next()(i)
        val part = if (before) rows.takeRight(need) else rows.take(need)
        taken = part :: taken
        need -= part.length
      }
      (if (before) taken else taken.reverse).toArray.flatten
    }
    union(perSpec, ordering)
  }

  /** Sorted lists of rows merged, each distinct row as many times as the list holding most. */
  def union(lists: Seq[Array[UnsafeRow]], ordering: Ordering[InternalRow]): Array[UnsafeRow] =
    if (lists.size <= 1) lists.headOption.getOrElse(Array.empty[UnsafeRow])
    else {
      val tagged = lists.zipWithIndex.flatMap { case (rows, l) => rows.map(_ -> l) }
        .sortWith((x, y) => ordering.compare(x._1, y._1) < 0)
      val out = Array.newBuilder[UnsafeRow]
      var i = 0
      while (i < tagged.length) {
        var j = i
        while (j < tagged.length && ordering.compare(tagged(i)._1, tagged(j)._1) == 0) j += 1
        val copies = tagged.slice(i, j).groupBy(_._2).values.map(_.size).max
        (0 until copies).foreach(_ => out += tagged(i)._1)
        i = j
      }
      out.result()
    }

  /** Each aggregate's deciding rows of two consecutive ranges, from theirs. */
  def inOrder(specs: Seq[DecidingRow])(before: Array[Array[UnsafeRow]],
      after: Array[Array[UnsafeRow]]): Array[Array[UnsafeRow]] =
    specs.indices.map { i =>
      if (specs(i).last) (before(i) ++ after(i)).takeRight(specs(i).rows)
      else (before(i) ++ after(i)).take(specs(i).rows)
    }.toArray
}
