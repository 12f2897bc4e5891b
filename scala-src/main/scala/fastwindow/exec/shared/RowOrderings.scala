package fastwindow.exec.shared

import java.util.Comparator

import org.apache.spark.sql.catalyst
  .expressions.{Ascending, Attribute, BindReferences, BoundReference, Expression, InterpretedOrdering, RowOrdering, SortOrder, UnsafeRow}

/**
 * Spark's orderings of rows, as the operators that order rows by hand use them (the group
 * limit's rank order, the group sort's order within a group, both ones' order of the keys):
 * generated code, or Spark's interpreted ordering when the codegen mode asks for no code.
 */
object RowOrderings {

  /** Spark's ordering of `order` over rows of `schema`: generated, or interpreted on request. */
  def ordering(order: Seq[SortOrder], schema: Seq[Attribute], interpreted: Boolean)
      : Comparator[UnsafeRow] = {
    val rowOrdering =
      if (interpreted) {
        new InterpretedOrdering(order.map(BindReferences.bindReference(_, schema)))
      } else {
        RowOrdering.create(order, schema)
      }
    (a: UnsafeRow, b: UnsafeRow) => rowOrdering.compare(a, b)
  }

  /** Spark's ascending order (NULL first) of the key rows of `keys` (column i is key i). */
  def keyOrder(keys: Seq[Expression], interpreted: Boolean): Comparator[UnsafeRow] =
    ordering(keys.zipWithIndex.map { case (key, i) =>
        SortOrder(BoundReference(i, key.dataType, key.nullable), Ascending)
      }, Nil, interpreted)
}
