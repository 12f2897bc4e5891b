package fastwindow.columns

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.types.{DataType, Decimal}
import org.apache.spark.sql.fastwindow.shims.NewerTypeGetters
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String}

/**
 * An [[InternalRow]] view of row `row` of a set of columns, so that Spark expressions bound to
 * the columns (ordinal k = column k) can be evaluated in interpreted mode without copying.
 */
final class ColumnarRowView(columns: Array[Column]) extends InternalRow with NewerTypeGetters {
  var row: Int = 0

  override def numFields: Int = columns.length
  override def isNullAt(ordinal: Int): Boolean = columns(ordinal).isNull(row)
  override def getBoolean(ordinal: Int): Boolean = columns(ordinal).getBoolean(row)
  override def getByte(ordinal: Int): Byte = columns(ordinal).getByte(row)
  override def getShort(ordinal: Int): Short = columns(ordinal).getShort(row)
  override def getInt(ordinal: Int): Int = columns(ordinal).getInt(row)
  override def getLong(ordinal: Int): Long = columns(ordinal).getLong(row)
  override def getFloat(ordinal: Int): Float = columns(ordinal).getFloat(row)
  override def getDouble(ordinal: Int): Double = columns(ordinal).getDouble(row)
  override def getDecimal(ordinal: Int, precision: Int, scale: Int): Decimal = obj(ordinal)
  override def getUTF8String(ordinal: Int): UTF8String = obj(ordinal)
  override def getBinary(ordinal: Int): Array[Byte] = obj(ordinal)
  override def getInterval(ordinal: Int): CalendarInterval = obj(ordinal)
  override def getStruct(ordinal: Int, numFields: Int): InternalRow = obj(ordinal)
  override def getArray(ordinal: Int): ArrayData = obj(ordinal)
  override def getMap(ordinal: Int): MapData = obj(ordinal)
  override def get(ordinal: Int, dataType: DataType): AnyRef =
    columns(ordinal).get(row).asInstanceOf[AnyRef]

  protected def obj[T](ordinal: Int): T = columns(ordinal).get(row).asInstanceOf[T]

  override def setNullAt(i: Int): Unit = throw new UnsupportedOperationException("read-only")
  override def update(i: Int, value: Any): Unit =
    throw new UnsupportedOperationException("read-only")
  override def copy(): InternalRow =
    InternalRow.fromSeq(columns.indices.map(i => columns(i).get(row)))
}
