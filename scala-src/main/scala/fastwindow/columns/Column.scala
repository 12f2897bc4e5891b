package fastwindow.columns

import org.apache.spark.sql.catalyst.types.{PhysicalBooleanType, PhysicalByteType, PhysicalDataType, PhysicalDoubleType, PhysicalFloatType, PhysicalIntegerType, PhysicalLongType, PhysicalShortType}
import org.apache.spark.sql.types.DataType

/**
 * One growable column of the partition buffer: the values of one input
 * expression for every row of the current partition, in a primitive array where the type allows.
 *
 * Columns are allocated once per task and reused by every partition (only `grow` allocates), so
 * many tiny partitions cost no allocation. Both evaluators use them: the interpreted one through
 * `put`/`get`, generated code through each typed subclass's `values` and `nulls` arrays (read
 * through the accessor every time: `grow` replaces them).
 */
sealed abstract class Column(val dataType: DataType) {
  private var nullFlags: Array[Boolean] = new Array[Boolean](Column.InitialCapacity)

  /** Null flag per row; reallocated by `grow`. */
  final def nulls: Array[Boolean] = nullFlags
  final def capacity: Int = nullFlags.length
  final def isNull(row: Int): Boolean = nullFlags(row)

  /** Stores `value` (boxed, `null` for SQL NULL) at `row`, which must be below `capacity`. */
  final def put(row: Int, value: Any): Unit = {
    if (value == null) nullFlags(row) = true
    else {
      nullFlags(row) = false
      putNonNull(row, value)
    }
  }

  /** The value at `row`, boxed; `null` for SQL NULL. */
  final def get(row: Int): Any = if (nullFlags(row)) null else getNonNull(row)

  /** Reallocates to hold at least `minCapacity` rows, keeping the first `used` rows. */
  final def grow(minCapacity: Int, used: Int): Unit = {
    val newCapacity = Column.grownCapacity(capacity, minCapacity)
    nullFlags = java.util.Arrays.copyOf(nullFlags, newCapacity)
    growValues(newCapacity, used)
  }

  /** Moves rows `d until d + count` to `0 until count` (a streaming evaluator dropped d rows). */
  final def shift(d: Int, count: Int): Unit = {
    System.arraycopy(nullFlags, d, nullFlags, 0, count)
    System.arraycopy(valueArray, d, valueArray, 0, count)
  }

  protected def putNonNull(row: Int, value: Any): Unit
  protected def getNonNull(row: Int): Any
  protected def growValues(newCapacity: Int, used: Int): Unit

  /** The primitive (or object) array holding the values. */
  protected def valueArray: AnyRef

  def getBoolean(row: Int): Boolean = unsupported("boolean")
  def getByte(row: Int): Byte = unsupported("byte")
  def getShort(row: Int): Short = unsupported("short")
  def getInt(row: Int): Int = unsupported("int")
  def getLong(row: Int): Long = unsupported("long")
  def getFloat(row: Int): Float = unsupported("float")
  def getDouble(row: Int): Double = unsupported("double")

  private def unsupported(what: String): Nothing =
    throw new UnsupportedOperationException(s"$what read from a column of $dataType")
}

object Column {
  val InitialCapacity = 16

  /** Doubling growth, capped below the JVM's array size limit. */
  def grownCapacity(current: Int, minCapacity: Int): Int = {
    val doubled = math.min(current.toLong * 2, Int.MaxValue - 16L).toInt
    math.max(doubled, minCapacity)
  }

  /** A column for values of `dataType`. */
  def apply(dataType: DataType): Column = kind(dataType)._2(dataType)

  /** The class `apply` returns for `dataType`, as generated code names it. */
  def className(dataType: DataType): String = kind(dataType)._1.getName

  private def kind(dataType: DataType): (Class[_ <: Column], DataType => Column) =
    PhysicalDataType(dataType) match {
      case PhysicalBooleanType => (classOf[BooleanColumn], new BooleanColumn(_))
      case PhysicalByteType => (classOf[ByteColumn], new ByteColumn(_))
      case PhysicalShortType => (classOf[ShortColumn], new ShortColumn(_))
      case PhysicalIntegerType => (classOf[IntColumn], new IntColumn(_))
      case PhysicalLongType => (classOf[LongColumn], new LongColumn(_))
      case PhysicalFloatType => (classOf[FloatColumn], new FloatColumn(_))
      case PhysicalDoubleType => (classOf[DoubleColumn], new DoubleColumn(_))
      case _ => (classOf[ObjectColumn], new ObjectColumn(_))
    }
}

final class BooleanColumn(dt: DataType) extends Column(dt) {
  private var data = new Array[Boolean](capacity)
  def values: Array[Boolean] = data
  override protected def putNonNull(row: Int, value: Any): Unit =
    data(row) = value.asInstanceOf[Boolean]
  override protected def getNonNull(row: Int): Any = data(row)
  override def getBoolean(row: Int): Boolean = data(row)
  override protected def growValues(n: Int, used: Int): Unit =
    data = java.util.Arrays.copyOf(data, n)
  override protected def valueArray: AnyRef = data
}

final class ByteColumn(dt: DataType) extends Column(dt) {
  private var data = new Array[Byte](capacity)
  def values: Array[Byte] = data
  override protected def putNonNull(row: Int, value: Any): Unit =
    data(row) = value.asInstanceOf[Byte]
  override protected def getNonNull(row: Int): Any = data(row)
  override def getByte(row: Int): Byte = data(row)
  override protected def growValues(n: Int, used: Int): Unit =
    data = java.util.Arrays.copyOf(data, n)
  override protected def valueArray: AnyRef = data
}

final class ShortColumn(dt: DataType) extends Column(dt) {
  private var data = new Array[Short](capacity)
  def values: Array[Short] = data
  override protected def putNonNull(row: Int, value: Any): Unit =
    data(row) = value.asInstanceOf[Short]
  override protected def getNonNull(row: Int): Any = data(row)
  override def getShort(row: Int): Short = data(row)
  override protected def growValues(n: Int, used: Int): Unit =
    data = java.util.Arrays.copyOf(data, n)
  override protected def valueArray: AnyRef = data
}

final class IntColumn(dt: DataType) extends Column(dt) {
  private var data = new Array[Int](capacity)
  def values: Array[Int] = data
  override protected def putNonNull(row: Int, value: Any): Unit =
    data(row) = value.asInstanceOf[Int]
  override protected def getNonNull(row: Int): Any = data(row)
  override def getInt(row: Int): Int = data(row)
  override protected def growValues(n: Int, used: Int): Unit =
    data = java.util.Arrays.copyOf(data, n)
  override protected def valueArray: AnyRef = data
}

final class LongColumn(dt: DataType) extends Column(dt) {
  private var data = new Array[Long](capacity)
  def values: Array[Long] = data
  override protected def putNonNull(row: Int, value: Any): Unit =
    data(row) = value.asInstanceOf[Long]
  override protected def getNonNull(row: Int): Any = data(row)
  override def getLong(row: Int): Long = data(row)
  override protected def growValues(n: Int, used: Int): Unit =
    data = java.util.Arrays.copyOf(data, n)
  override protected def valueArray: AnyRef = data
}

final class FloatColumn(dt: DataType) extends Column(dt) {
  private var data = new Array[Float](capacity)
  def values: Array[Float] = data
  override protected def putNonNull(row: Int, value: Any): Unit =
    data(row) = value.asInstanceOf[Float]
  override protected def getNonNull(row: Int): Any = data(row)
  override def getFloat(row: Int): Float = data(row)
  override protected def growValues(n: Int, used: Int): Unit =
    data = java.util.Arrays.copyOf(data, n)
  override protected def valueArray: AnyRef = data
}

final class DoubleColumn(dt: DataType) extends Column(dt) {
  private var data = new Array[Double](capacity)
  def values: Array[Double] = data
  override protected def putNonNull(row: Int, value: Any): Unit =
    data(row) = value.asInstanceOf[Double]
  override protected def getNonNull(row: Int): Any = data(row)
  override def getDouble(row: Int): Double = data(row)
  override protected def growValues(n: Int, used: Int): Unit =
    data = java.util.Arrays.copyOf(data, n)
  override protected def valueArray: AnyRef = data
}

/** Decimals, strings, binary, intervals and nested values, each owned by the column. */
final class ObjectColumn(dt: DataType) extends Column(dt) {
  private var data = new Array[AnyRef](capacity)
  def values: Array[AnyRef] = data
  override protected def putNonNull(row: Int, value: Any): Unit =
    data(row) = ColumnType.ownedCopy(dt, value).asInstanceOf[AnyRef]
  override protected def getNonNull(row: Int): Any = data(row)
  override protected def growValues(n: Int, used: Int): Unit =
    data = java.util.Arrays.copyOf(data, n)
  override protected def valueArray: AnyRef = data
}
