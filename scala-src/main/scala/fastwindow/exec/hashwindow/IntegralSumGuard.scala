package fastwindow.exec.hashwindow

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.{DeclarativeAggregate, Sum}
import org.apache.spark.sql.types.{ByteType, DataType, IntegerType, LongType, ShortType}

import fastwindow.exec.shared.GroupIds

/**
 * Whether a group's integral sums are the same in every order of its rows. Spark adds a group's
 * rows in the order its sort leaves them (not always the input order), and under ANSI or TRY
 * arithmetic whether a sum overflows depends on that order. Per group and sum what counts is the
 * sum of the positive and of the negative inputs: while both fit in a long, every partial sum, in
 * any order, lies between them, so no order overflows and every order gives the exact sum.
 *
 * `add` keeps those two sums over all the task's rows, in registers rather than per group (a
 * cache miss per row with 10^5 groups): when they fit, so do every group's. Only when they do not
 * does `mayOverflow` replay the rows per group.
 *
 * The sums' inputs, of integral types of `widths` bytes, are read at `ordinals` of what `select`
 * gives for a row: the row itself where they are its columns, else a projection of them.
 */
final class IntegralSumGuard(select: UnsafeRow => UnsafeRow, ordinals: Array[Int],
    widths: Array[Int]) {
  private val sums = widths.length

  /** Over every row added: sum k's positive part at 2k, its negative part at 2k + 1. */
  private val taskParts = new Array[Long](2 * sums)
  private var taskOverflowed = false

  /** Bytes per group that `mayOverflow` may need. */
  def bytesPerGroup: Long = 16L * sums

  def add(row: UnsafeRow): Unit =
    if (accumulate(taskParts, 0, row)) taskOverflowed = true

  /** Whether the parts of all rows together leave the long range: then groups must be told apart. */
  def tripped: Boolean = taskOverflowed

  /** Over every row added (when not `tripped`): sum k's positive part at 2k, its negative at 2k + 1. */
  def parts: Array[Long] = taskParts.clone()

  /**
   * Whether some group's parts leave the long range (an order could overflow), given every row
   * added, again, and by row its group among `groups`.
   */
  def mayOverflow(rows: Iterator[UnsafeRow], groupOf: Array[Int], groups: Int): Boolean =
    taskOverflowed && {
      val parts = new Array[Long](2 * sums * groups)
      var (i, overflowed) = (0, false)
      while (!overflowed && rows.hasNext) {
        overflowed = accumulate(parts, 2 * sums * groupOf(i), rows.next())
        i += 1
      }
      overflowed
    }

  /** Adds the row's inputs to the parts from `at`; whether one of them overflowed. */
  private def accumulate(parts: Array[Long], at: Int, row: UnsafeRow): Boolean = {
    val values = select(row)
    var (k, overflowed) = (0, false)
    while (k < sums) {
      if (!values.isNullAt(ordinals(k))) {
        val v = GroupIds.integralValue(values, ordinals(k), widths(k))
        val part = at + 2 * k + (if (v < 0) 1 else 0)
        val sum = parts(part) + v
        // Same-sign addition overflowed when the result's sign differs from the operands'.
        if ((sum ^ v) < 0) overflowed = true
        parts(part) = sum
      }
      k += 1
    }
    overflowed
  }
}

object IntegralSumGuard {

  /**
   * A guard of the integral sums among `aggregates`, over rows of `columns`: reading the inputs
   * from the row where they are columns, else from their projection by `project`.
   */
  def of(aggregates: Seq[DeclarativeAggregate], columns: Seq[Attribute],
      project: Seq[Expression] => UnsafeProjection): Option[IntegralSumGuard] = {
    val inputs = aggregates.collect { case s: Sum if integral(s.child.dataType) => s.child }
    val widths = inputs.map(e => GroupIds.integralWidth(e.dataType)).toArray
    val ordinals = inputs.map {
      case a: Attribute => columns.indexWhere(_.exprId == a.exprId)
      case _ => -1
    }
    if (inputs.isEmpty) None
    else if (ordinals.forall(_ >= 0))
      Some(new IntegralSumGuard(row => row, ordinals.toArray, widths))
    else {
      val projection = project(inputs)
      Some(new IntegralSumGuard(row => projection(row), inputs.indices.toArray, widths))
    }
  }

  /**
   * The parts of several tasks' rows added up (as `parts` gives them); None when one leaves the
   * long range: then some order of some group's rows could overflow.
   */
  def combined(tasks: Seq[Array[Long]]): Option[Array[Long]] =
    tasks.reduceOption { (a, b) =>
      if (a == null || b == null) null
      else {
        val sum = a.zip(b).map { case (x, y) => x + y }
        // Parts of one sign: the sum left the range when its sign differs from theirs.
        if (sum.indices.exists(i => (sum(i) ^ a(i)) < 0 && (a(i) ^ b(i)) >= 0)) null else sum
      }
    } match {
      case Some(null) => None
      case other => Some(other.getOrElse(Array.emptyLongArray))
    }

  private def integral(t: DataType): Boolean = t match {
    case ByteType | ShortType | IntegerType | LongType => true
    case _ => false
  }
}
