package fastwindow.exec.acrosstasks

import java.util.Comparator

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Ascending, Expression, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.{SortExec, SparkPlan, UnsafeExternalRowSorter}

import fastwindow.exec.shared.RowOrderings

/**
 * A range's rows, sorted by the window's keys, with each group of peers put in the order of
 * [[RangeOrder]]'s tie-break, so that the rows a range hands to its neighbours are the ones its
 * own task puts first and last.
 *
 * Sorting the whole range by the tie-break would make Spark's sort compare whole rows on every
 * tie, and lose its radix sort of one key; here Spark sorts by the keys alone and only peers are
 * compared, group by group. A group of up to [[PeersInOrder.MaxHeldRows]] rows and
 * [[PeersInOrder.MaxHeldBytes]] bytes is held and sorted here; a larger one goes to Spark's
 * sorter (`sparkSorter`), which accounts its memory and spills.
 */
final class PeersInOrder(
    rows: Iterator[InternalRow],
    toUnsafe: UnsafeProjection,
    peers: Comparator[UnsafeRow],
    tieBreak: Comparator[UnsafeRow],
    sparkSorter: () => UnsafeExternalRowSorter)
  extends Iterator[InternalRow] {
  import PeersInOrder._

  /** The rows of the current group (byte-array rows, reused from group to group). */
  private var held = new Array[UnsafeRow](16)
  private var groupRows = 0
  private var emitted = 0

  /** The current group when it was too large to hold: Spark's sort of it. */
  private var sorted: Iterator[InternalRow] = Iterator.empty

  /** The first row of the next group, read to find where the current one ends. */
  private var ahead: UnsafeRow = _
  private var hasAhead = false

  override def hasNext: Boolean = emitted < groupRows || sorted.hasNext || hasAhead || rows.hasNext

  override def next(): InternalRow = {
    if (emitted >= groupRows && !sorted.hasNext) nextGroup()
    if (emitted < groupRows) {
      emitted += 1
      held(emitted - 1)
    } else sorted.next()
  }

  private def unsafe(row: InternalRow): UnsafeRow = row match {
    case u: UnsafeRow => u
    case other => toUnsafe(other)
  }

  private def nextGroup(): Unit = {
    groupRows = 0
    emitted = 0
    if (hasAhead) {
      val first = held(0)
      held(0) = ahead
      ahead = first
      groupRows = 1
      hasAhead = false
    } else hold(unsafe(rows.next()))
    var heldBytes = held(0).getSizeInBytes.toLong
    while (!hasAhead && rows.hasNext) {
      val row = unsafe(rows.next())
      if (peers.compare(row, held(0)) != 0) keepAhead(row)
      else if (groupRows < MaxHeldRows && heldBytes + row.getSizeInBytes <= MaxHeldBytes) {
        hold(row)
        heldBytes += row.getSizeInBytes
      } else {
        sortInSpark(row)
        return
      }
    }
    if (groupRows > 1) java.util.Arrays.sort(held, 0, groupRows, tieBreak)
  }

  /** Keeps `row`, the first of the next group, for the next call. */
  private def keepAhead(row: UnsafeRow): Unit = {
    if (ahead == null) ahead = row.copy() else ahead.copyFrom(row)
    hasAhead = true
  }

  private def hold(row: UnsafeRow): Unit = {
    if (groupRows == held.length) held = java.util.Arrays.copyOf(held, groupRows * 2)
    if (held(groupRows) == null) held(groupRows) = row.copy() else held(groupRows).copyFrom(row)
    groupRows += 1
  }

  /** Sorts the held rows, `row` and the rest of its peers with Spark's sorter. */
  private def sortInSpark(row: UnsafeRow): Unit = {
    val sorter = sparkSorter()
    (0 until groupRows).foreach(i => sorter.insertRow(held(i)))
    sorter.insertRow(row)
    val first = held(0)
    var more = true
    while (more && rows.hasNext) {
      val next = unsafe(rows.next())
      if (peers.compare(next, first) == 0) sorter.insertRow(next)
      else {
        keepAhead(next)
        more = false
      }
    }
    groupRows = 0
    emitted = 0
    sorted = sorter.sort()
  }
}

object PeersInOrder {

  /** The most rows of one group of peers held and sorted here, not by Spark's sorter. */
  val MaxHeldRows = 4096

  /** The most bytes of one group of peers held and sorted here, not by Spark's sorter. */
  val MaxHeldBytes: Long = 4L << 20

  /**
   * What puts the peers of each range of a window spread with halo rows in the tie-break's order
   * (the keys `partitionSpec`, then `orderSpec`): each task's rows of `child`, Spark's sort by
   * those keys, through a [[PeersInOrder]]; as they are when `child` is already in that order.
   */
  def of(partitionSpec: Seq[Expression], orderSpec: Seq[SortOrder], child: SparkPlan,
      interpreted: Boolean): Iterator[InternalRow] => Iterator[InternalRow] = {
    val keysFirst = partitionSpec.map(SortOrder(_, Ascending))
    val output = child.output
    val total = keysFirst ++ RangeOrder.withTieBreak(orderSpec, output)
    if (SortOrder.orderingSatisfies(child.outputOrdering, total)) identity
    else {
      val sorting = SortExec(total, global = false, child)
      rows =>
        new PeersInOrder(
          rows,
          UnsafeProjection.create(output, output),
          RowOrderings.ordering(keysFirst ++ orderSpec, output, interpreted),
          RowOrderings.ordering(total, output, interpreted),
          () => sorting.createSorter()
        )
    }
  }
}
