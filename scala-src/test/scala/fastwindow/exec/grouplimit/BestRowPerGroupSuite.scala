package fastwindow.exec.grouplimit

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/**
 * [[BestRowPerGroup]], the arena of `row_number() <= 1`: against a reference (each group's first
 * row of least order value), with rows whose sizes change so that rows are overwritten in place,
 * appended and moved; and its bytes stay within twice the live rows.
 */
class BestRowPerGroupSuite extends AnyFunSuite {

  private val toUnsafe = UnsafeProjection.create(Array[DataType](IntegerType, LongType, StringType))
  private def row(group: Int, order: Long, payload: String): UnsafeRow =
    toUnsafe(new GenericInternalRow(Array[Any](group, order, UTF8String.fromString(payload))))
  private def show(r: InternalRow) = (r.getInt(0), r.getLong(1), r.getUTF8String(2).toString)

  private val byOrder: java.util.Comparator[UnsafeRow] =
    (a, b) => java.lang.Long.compare(a.getLong(1), b.getLong(1))

  test("keeps each group's first row of least order value, through overwrites, appends and moves") {
    val rng = new Random(7)
    val best = new BestRowPerGroup(byOrder)
    var mostGroups = 0
    for (round <- 0 until 3) { // the arena reused after clear
      val groups = 1 + rng.nextInt(5000)
      val rows = Seq.fill(40000) {
        (rng.nextInt(groups), rng.nextInt(1000).toLong,
          rng.alphanumeric.take(rng.nextInt(60)).mkString)
      }
      val ids = scala.collection.mutable.HashMap[Int, Int]()

      /** By group: the largest row it held (the live bytes never exceed their sum). */
      val largest = scala.collection.mutable.HashMap[Int, Long]().withDefaultValue(0L)
      rows.foreach { case (g, o, p) =>
        val r = row(g, o, p)
        val id = ids.getOrElseUpdate(g, best.count)
        if (id == best.count || best.admits(id, r)) {
          best.put(id, r)
          largest(g) = math.max(largest(g), r.getSizeInBytes)
        }
      }
      val expected = rows.groupBy(_._1).map { case (g, rs) =>
        g -> rs.minBy(_._2)
      } // first of the least
      assert(best.count == expected.size, s"round $round")
      ids.foreach { case (g, id) =>
        assert(show(best.kept(id)) == expected(g), s"round $round, group $g")
      }
      mostGroups = math.max(mostGroups, best.count)
      val arrays = 12L * 2 * mostGroups
      assert(best.bytes <= math.max(2 * largest.values.sum, 1L << 16) + arrays, s"round $round")
      best.clear()
      assert(best.count == 0)
    }
  }

  test("bytesAfterPut is what bytes becomes") {
    val best = new BestRowPerGroup(byOrder)
    val rng = new Random(3)
    for (i <- 0 until 20000) {
      val id = if (best.count == 0 || rng.nextInt(3) == 0) best.count else rng.nextInt(best.count)
      val r = row(id, -i, "x" * rng.nextInt(100))
      val predicted = best.bytesAfterPut(id, r)
      best.put(id, r)
      assert(best.bytes == predicted, s"put #$i")
    }
  }
}
