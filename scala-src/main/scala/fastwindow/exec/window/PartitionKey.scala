package fastwindow.exec.window

import org.apache.spark.sql.catalyst
  .expressions.{Attribute, BindReferences, BoundReference, Expression, InterpretedOrdering, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.fastwindow.shims.ClassicShim
import org.apache.spark.sql.types._

/**
 * Tells where window partitions start in the sorted input: a row belongs to the current partition
 * when its PARTITION BY key equals that of the partition's first row, with `WindowExec`'s test
 * (binary equality of the keys where their types allow it, else an ordering comparison).
 *
 * The test runs once per input row, so the common case avoids work `WindowExec` does per row:
 * when every key is a column of a fixed-width integral type (ints, longs, dates, timestamps,
 * ...), the row's values are compared in place with the first row's (for these types equal
 * values are equal bytes) instead of projecting each row's key into a new row first.
 */
sealed trait PartitionKey {

  /** Makes `row`'s key the current partition's. */
  def start(row: UnsafeRow): Unit

  /** Whether `row` belongs to the current partition. */
  def sameAsCurrent(row: UnsafeRow): Boolean
}

object PartitionKey {
  def apply(partitionSpec: Seq[Expression], childOutput: Seq[Attribute]): PartitionKey =
    if (partitionSpec.isEmpty) NoPartitionBy
    else {
      val bound = partitionSpec.map(BindReferences.bindReference(_, childOutput))
      val columns = bound.collect { case b: BoundReference if integral(b.dataType) => b }
      if (columns.size == bound.size) new IntegralColumns(columns)
      else new Projected(partitionSpec, childOutput)
    }

  /** Types whose values are equal exactly when their UnsafeRow slots are. */
  private def integral(t: DataType): Boolean = t match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | DateType | TimestampType |
        TimestampNTZType | _: YearMonthIntervalType | _: DayTimeIntervalType => true
    case _ => false
  }

  /** Without PARTITION BY every row is in the one partition. */
  private object NoPartitionBy extends PartitionKey {
    override def start(row: UnsafeRow): Unit = ()
    override def sameAsCurrent(row: UnsafeRow): Boolean = true
  }

  /** Keys that are integral columns: their values are kept as longs and compared in place. */
  private final class IntegralColumns(columns: Seq[BoundReference]) extends PartitionKey {
    private val ordinals = columns.map(_.ordinal).toArray
    private val widths = columns.map(c => c.dataType.defaultSize).toArray
    private val values = new Array[Long](ordinals.length)
    private val nulls = new Array[Boolean](ordinals.length)

    private def value(row: UnsafeRow, k: Int): Long = widths(k) match {
      case 8 => row.getLong(ordinals(k))
      case 4 => row.getInt(ordinals(k))
      case 2 => row.getShort(ordinals(k))
      case _ => row.getByte(ordinals(k)) // booleans are stored as one byte too
    }

    override def start(row: UnsafeRow): Unit = {
      var k = 0
      while (k < ordinals.length) {
        nulls(k) = row.isNullAt(ordinals(k))
        values(k) = if (nulls(k)) 0L else value(row, k)
        k += 1
      }
    }

    override def sameAsCurrent(row: UnsafeRow): Boolean = {
      var k = 0
      while (k < ordinals.length) {
        val isNull = row.isNullAt(ordinals(k))
        if (isNull != nulls(k) || (!isNull && value(row, k) != values(k))) return false
        k += 1
      }
      true
    }
  }

  /** Any other keys: each row's key is projected and compared as `WindowExec` does. */
  private final class Projected(partitionSpec: Seq[Expression], childOutput: Seq[Attribute])
    extends PartitionKey {
    private val project = UnsafeProjection.create(partitionSpec, childOutput)
    private val equal: (UnsafeRow, UnsafeRow) => Boolean =
      if (partitionSpec.forall(e => ClassicShim.isBinaryStable(e.dataType))) {
        (a, b) => a.equals(b)
      } else {
        val ordering = InterpretedOrdering.forSchema(partitionSpec.map(_.dataType))
        (a, b) => ordering.compare(a, b) == 0
      }
    private var current: UnsafeRow = _

    override def start(row: UnsafeRow): Unit = current = project(row).copy()
    override def sameAsCurrent(row: UnsafeRow): Boolean = equal(project(row), current)
  }
}
