package fastwindow.exec.grouplimit

import org.apache.spark.sql.catalyst
  .expressions.{Attribute, BindReferences, BoundReference, NullsFirst, SortOrder, UnsafeRow}

import fastwindow.exec.shared.GroupIds

/**
 * A top-k's ORDER BY when it is one integral column (ints, longs, dates, timestamps...): a row's
 * place in that order read as a long and a null flag, so that rows can be compared without
 * reading them again. [[IntegralOrderBounds]] keeps each group's bound this way, and
 * [[TopRowsPerGroup]] each held row's key beside its slot: comparing a row with a group's rows
 * then touches the group's slots, not the rows' bytes scattered over an arena.
 */
final class IntegralOrderKey private (
    ordinal: Int, width: Int, ascending: Boolean, nullsFirst: Boolean) {

  def isNull(row: UnsafeRow): Boolean = row.isNullAt(ordinal)

  /** The column's value (meaningless where it is null). */
  def value(row: UnsafeRow): Long = GroupIds.integralValue(row, ordinal, width)

  /** Negative where (aNull, a) comes first in the ORDER BY, 0 where they tie. */
  def compare(aNull: Boolean, a: Long, bNull: Boolean, b: Long): Int =
    if (aNull || bNull) {
      if (aNull == bNull) 0 else if (aNull == nullsFirst) -1 else 1
    } else {
      val c = java.lang.Long.compare(a, b)
      if (ascending) c else -c
    }
}

object IntegralOrderKey {

  /** The key of `orderSpec` when it is one integral column of `schema`, else None. */
  def apply(orderSpec: Seq[SortOrder], schema: Seq[Attribute]): Option[IntegralOrderKey] =
    orderSpec match {
      case Seq(order) =>
        BindReferences.bindReference(order.child, schema) match {
          case b: BoundReference if GroupIds.integralWidth(b.dataType) > 0 =>
            Some(new IntegralOrderKey(b.ordinal, GroupIds.integralWidth(b.dataType),
                order.isAscending, order.nullOrdering == NullsFirst))
          case _ => None
        }
      case _ => None
    }
}
