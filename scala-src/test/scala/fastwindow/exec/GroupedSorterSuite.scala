package fastwindow.exec

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, Descending, NullsFirst, NullsLast, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{IntegerType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.frames.StableIndexSort

/**
 * [[GroupedSorter]] against a stable sort of the rows by (group's first appearance, order key,
 * input position), by an integral order key and by Spark's row ordering, every direction and
 * NULL order; and its memory refusal taking nothing.
 */
class GroupedSorterSuite extends AnyFunSuite {

  /** Rows of (key: int, order: long, tag: string), the tag naming the input position. */
  private val columns = Seq(BoundReference(0, IntegerType, nullable = true),
    BoundReference(1, LongType, nullable = true), BoundReference(2, StringType, nullable = false))
  private val toRow = UnsafeProjection.create(columns)
  private val keyOf = UnsafeProjection.create(columns.take(1))
  private def row(key: Integer, order: java.lang.Long, at: Int): UnsafeRow =
    toRow(InternalRow(key, order, UTF8String.fromString(s"row $at" + "." * (at % 7)))).copy()

  private def unlimited = new MemoryBudget(None, 0L)

  /** The input positions, as the sorter returns the rows. */
  private def positions(rows: Iterator[UnsafeRow]): Seq[Int] =
    rows.map(_.getUTF8String(2).toString.stripPrefix("row ").takeWhile(_ != '.').toInt).toSeq

  private def expected(input: Seq[(Integer, java.lang.Long)], ascending: Boolean,
      nullsFirst: Boolean): Seq[Int] = {
    val firstSeen = input.map(_._1).distinct.zipWithIndex.toMap
    def orderRank(v: java.lang.Long): (Int, Long) =
      if (v == null) (if (nullsFirst) 0 else 2, 0L)
      else (1, if (ascending) v.longValue else -v.longValue)
    input.zipWithIndex.sortBy { case ((k, v), at) =>
      val (nullRank, value) = orderRank(v)
      (firstSeen(k), nullRank, value, at)
    }.map(_._2)
  }

  for (byRows <- Seq(false, true); ascending <- Seq(true, false); nullsFirst <- Seq(true, false)) {
    val how = s"${if (byRows) "Spark's row ordering" else "the integral key"}, " +
      s"${if (ascending) "asc" else "desc"} ${if (nullsFirst) "nulls first" else "nulls last"}"
    test(s"groups by key in order of appearance, each sorted stably: $how") {
      val random = new Random(11)
      val sortOrder = SortOrder(columns(1), if (ascending) Ascending else Descending,
        if (nullsFirst) NullsFirst else NullsLast, Seq.empty)
      val order =
        if (byRows) GroupedSorter.ByRows(HashGroupLimitExec.ordering(Seq(sortOrder), Nil, false))
        else GroupedSorter.ByIntegral(1, 8, ascending, nullsFirst)
      for (trial <- 0 until 60) {
        val keys = 1 + random.nextInt(if (trial % 3 == 0) 2 else 40)
        val input = Seq.fill(random.nextInt(400)) {
          (if (random.nextInt(15) == 0) null else Integer.valueOf(random.nextInt(keys)),
            if (random.nextInt(8) == 0) null else java.lang.Long.valueOf(random.nextInt(20) - 10))
        }
        val sorter = new GroupedSorter(keyOf, Seq(IntegerType), order, unlimited)
        input.zipWithIndex.foreach { case ((k, v), at) => assert(sorter.add(row(k, v, at))) }
        assert(sorter.groupCount == input.map(_._1).distinct.size)
        assert(positions(sorter.sorted(3)) == expected(input, ascending, nullsFirst))
        sorter.clear()
      }
    }
  }

  test("a refused row is not taken; the rows taken stay readable in input order") {
    val sorter = new GroupedSorter(keyOf, Seq(IntegerType),
      GroupedSorter.ByIntegral(1, 8, ascending = true, nullsFirst = true),
      new MemoryBudget(None, 1L << 21))
    var at = 0
    while (sorter.add(row(at % 1000, at.toLong, at))) at += 1
    assert(at > 1000 && sorter.rowCount == at)
    assert(positions(sorter.inputOrder(3)) == (0 until at))
    sorter.clear()
  }

  test("the stable sort keeps ties in place and merges presorted halves") {
    val random = new Random(3)
    for (n <- Seq(0, 1, 2, 15, 16, 17, 100, 1000)) {
      val keys = Array.fill(n)(random.nextInt(5))
      val rows = Array.range(0, n)
      StableIndexSort.sort(rows, 0, n, new Array[Int](n), (a: Int, b: Int) => keys(a) - keys(b))
      assert(rows.toSeq == (0 until n).sortBy(i => (keys(i), i)))
    }
  }
}
