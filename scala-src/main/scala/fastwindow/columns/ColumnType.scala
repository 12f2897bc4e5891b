package fastwindow.columns

import org.apache.spark.sql.catalyst.expressions.codegen.CodeGenerator
import org.apache.spark.sql.types._

/**
 * Which value types the columnar partition buffer can hold, and how each is stored.
 *
 * Fixed-width types are stored in primitive arrays of their Java type (`int[]` for int, date and
 * year-month intervals, `long[]` for bigint, timestamps and day-time intervals, ...). Everything
 * else is stored as objects; values that may point into the memory of the input row (strings,
 * arrays, maps, structs) are copied on the way in, because the row is reused by its producer
 * after we return.
 */
object ColumnType {

  def isSupported(dataType: DataType): Boolean = dataType match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType =>
      true
    case DateType | TimestampType | TimestampNTZType => true
    case _: YearMonthIntervalType | _: DayTimeIntervalType | CalendarIntervalType => true
    case _: DecimalType | _: StringType | BinaryType | NullType => true
    case ArrayType(element, _) => isSupported(element)
    case MapType(key, value, _) => isSupported(key) && isSupported(value)
    case StructType(fields) => fields.forall(f => isSupported(f.dataType))
    case _ => false
  }

  /** The Java type of one value, as Spark's code generator names it. */
  def javaType(dataType: DataType): String = CodeGenerator.javaType(dataType)

  def isPrimitive(dataType: DataType): Boolean = CodeGenerator.isPrimitiveType(dataType)

  /** Java expression giving a copy of `value` that does not share memory with the input row. */
  def ownedCopyCode(dataType: DataType, value: String): String = dataType match {
    case _: StringType | _: ArrayType | _: MapType | _: StructType => s"$value.copy()"
    case _ => value
  }

  /** The interpreted twin of [[ownedCopyCode]]. */
  def ownedCopy(dataType: DataType, value: Any): Any = (dataType, value) match {
    case (_, null) => null
    case (_: StringType, s: org.apache.spark.unsafe.types.UTF8String) => s.copy()
    case (_: ArrayType, a: org.apache.spark.sql.catalyst.util.ArrayData) => a.copy()
    case (_: MapType, m: org.apache.spark.sql.catalyst.util.MapData) => m.copy()
    case (_: StructType, r: org.apache.spark.sql.catalyst.InternalRow) => r.copy()
    case _ => value
  }
}
