package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.{Expression, KnownFloatingPointNormalized}
import org.apache.spark.sql.fastwindow.shims.ClassicShim
import org.apache.spark.sql.types._

/**
 * Which PARTITION BY keys fastwindow's hash operators (top-k per group, whole-partition
 * aggregates) can group by: those whose equal values are equal bytes, since groups are found by
 * hashing the keys' bytes. Floating keys count once Spark's optimizer normalized them
 * (`KnownFloatingPointNormalized`: -0.0 to 0.0, one NaN); non-binary collations and nested types
 * do not.
 */
object HashableKeys {

  def hashable(key: Expression): Boolean = key match {
    case KnownFloatingPointNormalized(_) => key.dataType == FloatType || key.dataType == DoubleType
    case _ => hashable(key.dataType)
  }

  private def hashable(t: DataType): Boolean = t match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | DateType | TimestampType |
         TimestampNTZType | BinaryType | _: DecimalType | _: YearMonthIntervalType |
         _: DayTimeIntervalType => true
    case s: StringType => ClassicShim.isBinaryStable(s)
    case _ => false
  }
}
