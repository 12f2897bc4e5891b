package fastwindow.exec.acrosstasks

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, BoundReference, SortOrder}
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.types.{DataType, IntegerType}
import org.scalatest.funsuite.AnyFunSuite

/**
 * A range's first and last rows as the map side keeps them (halo rows across tasks): the `k`
 * first (last) by the order then by arrival, against a sort of every row offered, for rows in
 * order, in reverse, in random order with ties (the first or last arrivals kept), and in runs; the offered row's object reused, as
 * a task's input reuses it.
 */
class FirstRowsSuite extends AnyFunSuite {

  private val ordering: Ordering[InternalRow] =
    new LazilyGeneratedOrdering(Seq(SortOrder(BoundReference(0, IntegerType, true), Ascending)))

  /** The rows kept, (value, arrival), against a sort of every row offered. */
  private def check(values: Seq[Int], k: Int, reverse: Boolean): Unit = {
    val kept = new FirstRows(k, ordering, reverse)
    // Each row is (value, arrival), the order reads the value only; one object for every row.
    val unsafe = UnsafeProjection.create(Array[DataType](IntegerType, IntegerType))
    values.zipWithIndex.foreach { case (v, arrival) =>
      kept.offer(unsafe(InternalRow(v, arrival)), arrival)
    }
    val byOrder = values.zipWithIndex.sorted
    val expected = if (reverse) byOrder.takeRight(k) else byOrder.take(k)
    val got = kept.sorted.toSeq.map(r => (r.getInt(0), r.getInt(1)))
    assert(got == expected, s"k=$k reverse=$reverse values=${values.take(40)}")
  }

  test("rows in order, in reverse, and in random order with ties, either end kept") {
    val random = new Random(11)
    val orders = Seq[Int => Seq[Int]](
      n => 0 until n,
      n => (0 until n).reverse,
      n => Seq.fill(n)(random.nextInt(math.max(1, n / 3))),
      n => (0 until n).grouped(7).toSeq.reverse.flatten, // runs in order, the runs reversed
      n => (0 until n).map(i => if (i % 2 == 0) i else n - i)
    )
    for (n <- Seq(0, 1, 5, 40, 300); k <- Seq(1, 2, 7, 64); order <- orders;
      reverse <- Seq(false, true)) {
      check(order(n), k, reverse)
    }
  }
}
