package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, UnsafeProjection, UnsafeRow}

import fastwindow.model.Spread

/**
 * An aggregate whose state is that of a few rows ([[StateFold.decidedByRows]]): aggregate
 * `aggregate` of a [[StateFold]], which takes the last row (else the first `rows` rows) by the
 * window's order whose `input` is not null (any row unless `ignoreNulls`). first and last take
 * one row; nth_value(x, n) the first n. Also the rows lag/lead IGNORE NULLS read in the ranges
 * around a range (`aggregate` -1: see [[DecidingRows.forNonNullHalos]]).
 */
final case class DecidingRow(aggregate: Int, last: Boolean, ignoreNulls: Boolean,
    input: Expression, rows: Int = 1)

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

/**
 * The `k` rows that come first (with `reverse`, last) by `ordering` then by arrival among those
 * offered, kept in a ring in that order. A row offered in the order the kept rows move in (with
 * `reverse`, after the last kept row: a table written in time order; without, before the first:
 * such a table read for a descending order) costs one comparison: it is copied into the bytes of
 * the row it pushes out, and the ring turns. A row that cannot enter costs one or two; any other
 * is placed by a binary search, the rows on its shorter side moved by one.
 */
private[acrosstasks] final class FirstRows(k: Int, ordering: Ordering[InternalRow],
    reverse: Boolean) {
  private val rows = new Array[UnsafeRow](k)
  private val arrivals = new Array[Long](k)
  private var head = 0 // the slot of the first kept row
  private var size = 0

  private def slot(i: Int): Int = if (head + i >= k) head + i - k else head + i

  private def compare(row: UnsafeRow, arrival: Long, i: Int): Int = {
    val s = slot(i)
    val c = ordering.compare(row, rows(s))
    if (c != 0) c else java.lang.Long.compare(arrival, arrivals(s))
  }

  def offer(row: UnsafeRow, arrival: Long): Unit = if (k > 0) {
    if (size < k) insert(row.copy(), arrival)
    else if (reverse) {
      if (compare(row, arrival, size - 1) > 0) {
        // After the last: it takes the first's place, which becomes the last.
        rows(head).copyFrom(row)
        arrivals(head) = arrival
        head = slot(1)
      } else if (compare(row, arrival, 0) > 0) {
        val reused = rows(head)
        head = slot(1)
        size -= 1
        reused.copyFrom(row)
        insert(reused, arrival)
      }
    } else if (compare(row, arrival, size - 1) < 0) {
      if (compare(row, arrival, 0) < 0) {
        // Before the first: it takes the last's place, which becomes the first.
        head = slot(k - 1)
        rows(head).copyFrom(row)
        arrivals(head) = arrival
      } else {
        val reused = rows(slot(size - 1))
        size -= 1
        reused.copyFrom(row)
        insert(reused, arrival)
      }
    }
  }

  /** Puts `row` (owned here) where it belongs among fewer than `k` kept rows. */
  private def insert(row: UnsafeRow, arrival: Long): Unit = {
    var at = size
    if (size > 0 && compare(row, arrival, size - 1) < 0) {
      var low = 0
      var high = size - 1
      while (low < high) {
        val mid = (low + high) >>> 1
        if (compare(row, arrival, mid) < 0) high = mid else low = mid + 1
      }
      at = low
    }
    if (at < size - at) {
      head = slot(k - 1) // the rows before `at` move one slot back
      var i = 0
      while (i < at) { move(i + 1, i); i += 1 }
    } else {
      var i = size
      while (i > at) { move(i - 1, i); i -= 1 }
    }
    rows(slot(at)) = row
    arrivals(slot(at)) = arrival
    size += 1
  }

  private def move(from: Int, to: Int): Unit = {
    rows(slot(to)) = rows(slot(from))
    arrivals(slot(to)) = arrivals(slot(from))
  }

  /** The kept rows, first to last. */
  def sorted: Array[UnsafeRow] = Array.tabulate(size)(i => rows(slot(i)))
}
