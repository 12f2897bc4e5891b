package fastwindow.exec.grouporder

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Ascending, BoundReference, Cast, Descending, NullsFirst, NullsLast, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{IntegerType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.exec.shared.{MemoryBudget, RowOrderings}
import fastwindow.frames.StableIndexSort

/**
 * [[GroupedSorter]] against a stable sort of the rows by (key, order key, input position), as
 * Spark's sort below a window orders them: keys grouped by one integral column (radix-sorted ids)
 * and by a string column (Spark's key ordering), ordered by an integral order key and by Spark's
 * row ordering, every direction and NULL order; rows of no columns; the nearly-distinct check;
 * and its memory refusal taking nothing.
 */
class GroupedSorterSuite extends AnyFunSuite {

  /** Rows of (key: int, order: long, tag: string), the tag naming the input position. */
  private val columns = Seq(BoundReference(0, IntegerType, nullable = true),
    BoundReference(1, LongType, nullable = true), BoundReference(2, StringType, nullable = false))
  private val toRow = UnsafeProjection.create(columns)
  private val keyOf = UnsafeProjection.create(columns.take(1))

  /** The key as a string: "10" before "9", so the key order is not the integral one. */
  private val stringKey = Seq(Cast(columns.head, StringType))
  private val stringKeyOf = UnsafeProjection.create(stringKey)

  private def sorter(byString: Boolean, order: GroupedSorter.Order, budget: MemoryBudget) =
    if (byString) {
      new GroupedSorter(stringKeyOf, Seq(StringType), RowOrderings.keyOrder(stringKey, false),
        order, budget)
    } else {
      new GroupedSorter(keyOf, Seq(IntegerType), RowOrderings.keyOrder(columns.take(1), false),
        order, budget)
    }
  private def row(key: Integer, order: java.lang.Long, at: Int): UnsafeRow =
    toRow(InternalRow(key, order, UTF8String.fromString(s"row $at" + "." * (at % 7)))).copy()

  private def unlimited = new MemoryBudget(None, 0L)

  /** The input positions, as the sorter returns the rows. */
  private def positions(rows: Iterator[UnsafeRow]): Seq[Int] =
    rows.map(_.getUTF8String(2).toString.stripPrefix("row ").takeWhile(_ != '.').toInt).toSeq

  private def expected(input: Seq[(Integer, java.lang.Long)], byString: Boolean,
      ascending: Boolean, nullsFirst: Boolean): Seq[Int] = {
    val keys = input.map(_._1).distinct.filter(_ != null)
    val inKeyOrder = if (byString) keys.sortBy(_.toString) else keys.sortBy(_.intValue)
    val keyRank = (null +: inKeyOrder).zipWithIndex.toMap
    def orderRank(v: java.lang.Long): (Int, Long) =
      if (v == null) (if (nullsFirst) 0 else 2, 0L)
      else (1, if (ascending) v.longValue else -v.longValue)
    input.zipWithIndex.sortBy { case ((k, v), at) =>
      val (nullRank, value) = orderRank(v)
      (keyRank(k), nullRank, value, at)
    }.map(_._2)
  }

  for (byString <- Seq(false, true); byRows <- Seq(false, true); ascending <- Seq(true, false);
    nullsFirst <- Seq(true, false)) {
    val how = s"${if (byString) "a string key" else "an integral key"}, " +
      s"${if (byRows) "Spark's row ordering" else "the integral order key"}, " +
      s"${if (ascending) "asc" else "desc"} ${if (nullsFirst) "nulls first" else "nulls last"}"
    test(s"groups in key order, NULL first, each sorted stably: $how") {
      val random = new Random(11)
      val sortOrder = SortOrder(columns(1), if (ascending) Ascending else Descending,
        if (nullsFirst) NullsFirst else NullsLast, Seq.empty)
      val order =
        if (byRows) GroupedSorter.ByRows(RowOrderings.ordering(Seq(sortOrder), Nil, false))
        else GroupedSorter.ByIntegral(1, 8, ascending, nullsFirst)
      for (trial <- 0 until 60) {
        val keys = 1 + random.nextInt(if (trial % 3 == 0) 2 else 40)
        val input = Seq.fill(random.nextInt(400)) {
          (if (random.nextInt(15) == 0) null else Integer.valueOf(random.nextInt(keys) - keys / 2),
            if (random.nextInt(8) == 0) null else java.lang.Long.valueOf(random.nextInt(20) - 10))
        }
        val grouped = sorter(byString, order, unlimited)
        input.zipWithIndex.foreach { case ((k, v), at) => assert(grouped.add(row(k, v, at))) }
        assert(grouped.groupCount == input.map(_._1).distinct.size)
        assert(positions(grouped.sorted(3)) == expected(input, byString, ascending, nullsFirst))
        grouped.clear()
      }
    }
  }

  private val byOrderKey = GroupedSorter.ByIntegral(1, 8, ascending = true, nullsFirst = true)

  test("a refused row is not taken; the rows taken stay readable in input order") {
    val grouped = sorter(byString = false, byOrderKey, new MemoryBudget(None, 1L << 21))
    var at = 0
    while (grouped.add(row(at % 1000, at.toLong, at))) at += 1
    assert(at > 1000 && grouped.rowCount == at)
    assert(positions(grouped.inputOrder(3)) == (0 until at))
    grouped.clear()
  }

  test("rows of no columns (a window by literals only) are grouped") {
    val noColumns = new GroupedSorter(UnsafeProjection.create(Nil), Nil,
      RowOrderings.keyOrder(Nil, false), GroupedSorter.ByRows((_, _) => 0), unlimited)
    val empty = UnsafeProjection.create(Nil)(InternalRow.empty)
    (0 until 5).foreach(_ => assert(noColumns.add(empty)))
    assert(noColumns.sorted(0).size == 5)
    noColumns.clear()
  }

  test("nearly distinct: nine rows in ten with a key of their own") {
    val grouped = sorter(byString = false, byOrderKey, unlimited)
    (0 until 90).foreach(at => grouped.add(row(at, 0L, at)))
    (90 until 100).foreach(at => grouped.add(row(0, 0L, at)))
    assert(grouped.nearlyDistinct)
    grouped.add(row(0, 0L, 100))
    assert(!grouped.nearlyDistinct)
    grouped.clear()
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
