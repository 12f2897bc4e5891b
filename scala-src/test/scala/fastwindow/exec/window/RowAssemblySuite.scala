package fastwindow.exec.window

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeRowJoiner
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.Platform
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.WindowTestKit._

/**
 * The per-row helpers of [[WindowPartitionIterator]] against what they replace:
 *  - [[RowAppender]] writes the same bytes as Spark's generated `UnsafeRowJoiner`, for random
 *    schemas of fixed- and variable-length fields whose null bits span one or several words, with
 *    rows both in byte arrays and off-heap;
 *  - [[PartitionKey]] groups rows exactly as projecting their keys and comparing the key rows
 *    does (`WindowExec`'s test), for integral keys (compared in place) and others (projected).
 */
class RowAssemblySuite extends AnyFunSuite {

  private val types: Seq[DataType] = Seq(IntegerType, LongType, StringType, DoubleType,
    DecimalType(10, 2), DecimalType(30, 4), BinaryType, DateType, BooleanType, ShortType)

  private def unsafeRows(r: Random, schema: Seq[DataType], n: Int): Seq[UnsafeRow] = {
    val project = UnsafeProjection.create(schema.toArray)
    val shape = Shape(distinct = 5, nullFraction = 0.2, specialFraction = 0.1)
    Seq.fill(n) {
      project(new GenericInternalRow(schema.map(randomValue(_, r, shape)).toArray)).copy()
    }
  }

  private def structOf(schema: Seq[DataType]): StructType =
    StructType(schema.zipWithIndex.map { case (t, i) => StructField(s"c$i", t) })

  /** Runs `f` on an off-heap copy of `row`. */
  private def offHeap[T](row: UnsafeRow)(f: UnsafeRow => T): T = {
    val address = Platform.allocateMemory(math.max(row.getSizeInBytes, 8).toLong)
    try {
      row.writeToMemory(null, address)
      val copy = new UnsafeRow(row.numFields)
      copy.pointTo(null, address, row.getSizeInBytes)
      f(copy)
    } finally Platform.freeMemory(address)
  }

  test("RowAppender writes the bytes of Spark's UnsafeRowJoiner") {
    val r = new Random(42)
    for (round <- 0 until 60) {
      val sizes = Seq(0, 1, 3, 63, 64, 65, 70, 130)
      val childSchema = Seq.fill(sizes(r.nextInt(sizes.size)))(types(r.nextInt(types.size)))
      val resultSchema = Seq.fill(1 + r.nextInt(if (round % 5 == 0) 70 else 4)) {
        types(r.nextInt(types.size))
      }
      val appender = new RowAppender(childSchema, resultSchema)
      val joiner = GenerateUnsafeRowJoiner.create(structOf(childSchema), structOf(resultSchema))
      val children = unsafeRows(r, childSchema, 20)
      val results = unsafeRows(r, resultSchema, 20)
      children.zip(results).foreach { case (child, result) =>
        val expected = joiner.join(child, result).copy()
        assert(appender(child, result) == expected, s"schemas $childSchema / $resultSchema")
        offHeap(child) { c =>
          assert(appender(c, result) == expected, s"off-heap child, $childSchema / $resultSchema")
        }
      }
    }
  }

  test("PartitionKey groups rows as projected keys compared as WindowExec does") {
    val r = new Random(7)
    val keyTypes = Seq(IntegerType, LongType, ShortType, ByteType, BooleanType, DateType,
      TimestampType, StringType, DoubleType, DecimalType(10, 2))
    for (_ <- 0 until 40) {
      val schema = Seq.fill(1 + r.nextInt(4))(keyTypes(r.nextInt(keyTypes.size)))
      val output = schema.zipWithIndex.map { case (t, i) => attr(s"c$i", t) }
      val keys = r.shuffle(output).take(1 + r.nextInt(output.size))
      val project = UnsafeProjection.create(keys, output)
      val key = PartitionKey(keys, output)
      val rows = unsafeRows(r, schema, 200)
      var first: InternalRow = null
      rows.foreach { row =>
        if (first == null) {
          key.start(row)
          first = project(row).copy()
        } else {
          val same = project(row) == first
          assert(key.sameAsCurrent(row) == same, s"keys $keys of $output")
          if (!same) {
            key.start(row)
            first = project(row).copy()
          }
        }
      }
    }
  }
}
