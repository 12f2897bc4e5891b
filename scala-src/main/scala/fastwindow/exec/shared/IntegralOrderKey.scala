package fastwindow.exec.shared

import org.apache.spark.sql.catalyst
  .expressions.{Attribute, BindReferences, BoundReference, NullsFirst, SortOrder, UnsafeRow}

/**
 * An ORDER BY whose first key is one integral column (ints, longs, dates, timestamps...): a
 * row's place in that key's order read as a long and a null flag, so that rows can be compared
 * without reading them again. A top-k keeps each group's bound this way
 * ([[fastwindow.exec.grouplimit.IntegralOrderBounds]]) and each held row's key beside its slot
 * ([[fastwindow.exec.grouplimit.TopRowsPerGroup]]); the map side of a range shuffle follows
 * whether each range's rows arrive in order ([[fastwindow.exec.acrosstasks.KeyRun]]).
 */
final class IntegralOrderKey private (
    ordinal: Int, width: Int, ascending: Boolean, nullsFirst: Boolean)
  extends Serializable {

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

  /** The key of the first of `orderSpec`'s keys when it is one integral column of `schema`. */
  def first(orderSpec: Seq[SortOrder], schema: Seq[Attribute]): Option[IntegralOrderKey] =
    apply(orderSpec.take(1), schema)
}
