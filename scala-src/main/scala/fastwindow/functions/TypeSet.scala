package fastwindow.functions

import org.apache.spark.sql.fastwindow.shims.ClassicShim
import org.apache.spark.sql.types._

import fastwindow.columns.ColumnType

/** A named set of data types, described for users. */
final case class TypeSet(description: String, contains: DataType => Boolean) {
  def as(newDescription: String): TypeSet = copy(description = newDescription)
}

object TypeSet {
  val numeric: TypeSet = TypeSet(
    "tinyint, smallint, int, bigint, float, double, decimal",
    {
      case ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType => true
      case _: DecimalType => true
      case _ => false
    }
  )

  /** What sum and avg add: numbers and ANSI intervals (added with Spark's overflow check). */
  val summable: TypeSet = TypeSet(
    s"${numeric.description}, ANSI intervals",
    {
      case _: YearMonthIntervalType | _: DayTimeIntervalType => true
      case other => numeric.contains(other)
    })

  val integral: TypeSet = TypeSet(
    "tinyint, smallint, int, bigint",
    {
      case ByteType | ShortType | IntegerType | LongType => true
      case _ => false
    })

  /**
   * Types fastwindow compares (peers, min/max, min_by/max_by orderings): always with Spark's own
   * comparison of the type, so collated strings compare by their collation.
   */
  val orderable: TypeSet = TypeSet(
    "numeric, boolean, string (any collation), binary, date, timestamp, timestamp_ntz, " +
      "ANSI intervals",
    {
      case _: StringType => true
      case BooleanType | BinaryType | DateType | TimestampType | TimestampNTZType => true
      case _: YearMonthIntervalType | _: DayTimeIntervalType => true
      case other => numeric.contains(other)
    }
  )

  /**
   * ORDER BY key types whose peers fastwindow finds: orderable ones, structs and arrays of them
   * (equal as Spark's ordering compares them), and NULL (ORDER BY NULL, all rows peers).
   */
  val peerKey: TypeSet = TypeSet(
    s"${orderable.description}, structs and arrays of these, void (ORDER BY NULL)",
    t => t == NullType || nestedOrderable(t))

  private def nestedOrderable(t: DataType): Boolean = t match {
    case a: ArrayType => nestedOrderable(a.elementType)
    case s: StructType => s.fields.forall(f => nestedOrderable(f.dataType))
    case other => orderable.contains(other)
  }

  /** Order key types of RANGE frames with value offsets (those Spark accepts). */
  val rangeKey: TypeSet = TypeSet(
    s"${numeric.description}, date, timestamp, timestamp_ntz, ANSI intervals",
    {
      case DateType | TimestampType | TimestampNTZType => true
      case _: YearMonthIntervalType | _: DayTimeIntervalType => true
      case other => numeric.contains(other)
    }
  )

  /**
   * Types whose equal values are equal bytes, so that values can be grouped by hashing their
   * bytes and an aggregate that keeps one of several equal values keeps the same bytes whichever
   * it sees first. Not floating types (0.0 and -0.0, NaNs), strings under non-binary collations,
   * nor (conservatively) nested types.
   */
  val byteStable: TypeSet = TypeSet(
    "boolean, integral, decimal, date, timestamp, timestamp_ntz, binary, ANSI intervals, " +
      "strings of binary collations",
    {
      case BooleanType | ByteType | ShortType | IntegerType | LongType | DateType | TimestampType |
          TimestampNTZType | BinaryType | _: DecimalType | _: YearMonthIntervalType |
          _: DayTimeIntervalType => true
      case s: StringType => ClassicShim.isBinaryStable(s)
      case _ => false
    }
  )

  val anyBufferable: TypeSet = TypeSet(
    "any type except variant, user-defined and object types",
    ColumnType.isSupported)
}
