package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{DataType, DecimalType}

/** Writes a value of `dataType`, null or not, into slot `ordinal` of a row of results. */
final class ValueWriter(ordinal: Int, dataType: DataType) {
  private val write = InternalRow.getWriter(ordinal, dataType)
  // Spark's writers take nulls only for decimals (whose slot in an UnsafeRow keeps its place).
  private val writesNulls = dataType.isInstanceOf[DecimalType]

  def apply(out: InternalRow, value: Any): Unit =
    if (value == null && !writesNulls) out.setNullAt(ordinal) else write(out, value)
}
