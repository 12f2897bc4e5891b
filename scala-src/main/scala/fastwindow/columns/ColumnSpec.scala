package fastwindow.columns

import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression}
import org.apache.spark.sql.types.DataType

/**
 * One column of the partition buffer: an input expression evaluated once per row.
 *
 * @param bound     the expression bound to the child's output (what ingest evaluates)
 * @param attribute stands for the column in expressions rewritten to read columns
 */
final case class ColumnSpec(index: Int, bound: Expression, attribute: AttributeReference) {
  def dataType: DataType = attribute.dataType
  def nullable: Boolean = attribute.nullable
}
