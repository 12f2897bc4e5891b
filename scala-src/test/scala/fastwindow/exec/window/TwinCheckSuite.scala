package fastwindow.exec.window

import org.apache.spark.SparkException
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types.{ArrayType, DataType, Decimal, DecimalType, DoubleType, LongType}
import org.scalatest.funsuite.AnyFunSuite

/**
 * The differential suite runs both evaluators through [[TwinCheck]] (`VERIFY`), so what it
 * counts as a disagreement is what the suite can catch: these checks make it fail where the two
 * would give different answers to a user, and only there.
 */
class TwinCheckSuite extends AnyFunSuite {
  private val types: Seq[DataType] = Seq(LongType, DoubleType, DecimalType(10, 2),
    ArrayType(DoubleType))
  private def row(l: Long, d: Double, dec: String, arr: Double*): InternalRow =
    InternalRow(l, d, Decimal(BigDecimal(dec)), new GenericArrayData(arr.toArray[Any]))
  private val input = Seq(row(1, 0.5, "1.00"), row(2, 1.5, "2.00"))

  private def check(fast: Seq[InternalRow], twin: Seq[InternalRow]): Seq[InternalRow] =
    TwinCheck(input.iterator, types)(_ => fast.iterator, _ => twin.iterator).toList

  test("agreeing evaluators give the generated rows, NaN agreeing with NaN") {
    val rows = Seq(row(1, Double.NaN, "1.00", Double.NaN, 2.0))
    assert(check(rows, Seq(row(1, Double.NaN, "1.00", Double.NaN, 2.0))).map(_.getLong(0)) ==
      Seq(1L))
  }

  test("a value, a sign of zero, a decimal's scale or a row count that differs fails the task") {
    val fast = row(1, 0.0, "1.00", 1.0)
    for (twin <- Seq(row(2, 0.0, "1.00", 1.0), row(1, -0.0, "1.00", 1.0),
        row(1, 0.0, "1.0", 1.0), row(1, 0.0, "1.00", -0.0))) {
      val e = intercept[SparkException](check(Seq(fast), Seq(twin)))
      assert(e.getMessage.contains("row 0, column"), e.getMessage)
    }
    assert(intercept[SparkException](check(Seq(fast), Nil)).getMessage
        .contains("1 rows generated, 0 interpreted"))
  }

  test("the same failure on both is the task's failure; a failure on one side only is not") {
    def failing(message: String): Iterator[InternalRow] => Iterator[InternalRow] =
      _ => throw new ArithmeticException(message)
    val same = intercept[ArithmeticException](
      TwinCheck(input.iterator, types)(failing("overflow"), failing("overflow")))
    assert(same.getMessage == "overflow")
    val oneSided = intercept[SparkException](
      TwinCheck(input.iterator, types)(failing("overflow"), rows => rows))
    assert(oneSided.getMessage.contains("the generated evaluator failed"))
  }

  test("both evaluators read the same rows, though the task's input is an iterator") {
    var seen = List.empty[Long]
    def echo(rows: Iterator[InternalRow]): Iterator[InternalRow] = {
      val all = rows.toList
      seen ++= all.map(_.getLong(0))
      all.iterator
    }
    TwinCheck(input.iterator, types)(echo, echo).toList
    assert(seen == List(1L, 2L, 1L, 2L))
  }
}
