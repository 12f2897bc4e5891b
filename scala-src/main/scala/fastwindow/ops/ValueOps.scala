package fastwindow.ops

import org.apache.spark.sql.catalyst.InternalRow

/**
 * A value to copy into the result row at the function's ordinal: an input (a column, or a
 * constant) read at a buffered row, or a default evaluated at a row (lead/lag).
 */
abstract class ValueOps {
  def isNull(row: Int): Boolean
  def write(row: Int, out: InternalRow): Unit
  def writeDefault(row: Int, out: InternalRow): Unit
}
