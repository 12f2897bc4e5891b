package fastwindow.exec.acrosstasks

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Ascending, BoundReference, Literal, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.types.IntegerType
import org.scalatest.funsuite.AnyFunSuite

/**
 * The map side's count of a range's distinct ORDER BY values (dense_rank across tasks): exact
 * whenever it claims to be (against a set of the values), for rows in order, in reverse, in
 * runs of either, for parts of a range that meet at their ends, and never claimed for rows
 * whose runs overlap.
 */
class ValueRunSuite extends AnyFunSuite {

  private val ordering: Ordering[InternalRow] =
    new LazilyGeneratedOrdering(Seq(SortOrder(BoundReference(0, IntegerType, true), Ascending)))

  private def row(v: Int): UnsafeRow =
    UnsafeProjection.create(Seq(Literal(v))).apply(InternalRow.empty).copy()

  private val MaxRuns = 64

  private def track(values: Seq[Int]): ValueRun = {
    val tracker = new ValueRunTracker(ordering, MaxRuns)
    values.foreach(v => tracker.offer(row(v)))
    tracker.result
  }

  test("rows in order, in reverse and in runs of either are counted") {
    assert(track(Seq(1, 1, 2, 5, 5, 5, 9)).count == 4)
    assert(track(Seq(9, 7, 7, 3)).count == 3)
    val runs = track(Seq(10, 11, 11, 12, 5, 4, 4, 3, 20, 21))
    assert(runs.ordered && runs.count == 8 && runs.low.getInt(0) == 3 &&
      runs.high.getInt(0) == 21)
    assert(track(Nil) == ValueRun.Empty)
  }

  test("runs that overlap, or more runs than followed, are not counted") {
    assert(!track(Seq(1, 5, 3, 7)).ordered) // 1..5 then 3..7
    val sawtooth = (0 until MaxRuns + 1).flatMap(r => Seq(2 * r + 1, 2 * r))
    assert(!track(sawtooth).ordered)
    assert(track(sawtooth.take(2 * (MaxRuns - 1))).ordered)
  }

  test("parts meeting at their ends count a value once") {
    val parts = Seq(track(Seq(5, 6, 7)), track(Seq(1, 2, 3, 4, 5)), ValueRun.Empty,
      track(Seq(7, 7, 9)))
    assert(ValueRun.concat(parts, ordering).count == 8) // 1..7 and 9
    assert(!ValueRun.concat(Seq(track(Seq(1, 4)), track(Seq(3, 5))), ordering).ordered)
    assert(ValueRun.concat(Seq(ValueRun.Empty, ValueRun.Empty), ordering) == ValueRun.Empty)
  }

  test("random parts of random rows: a count claimed is the number of distinct values") {
    val random = new Random(7)
    var claimed = 0
    for (_ <- 0 until 500) {
      val parts = Seq.fill(1 + random.nextInt(4)) {
        val start = random.nextInt(40)
        val sorted = Seq.fill(random.nextInt(12))(start + random.nextInt(15)).sorted
        if (random.nextBoolean()) sorted else sorted.reverse
      }
      val run = ValueRun.concat(parts.map(track), ordering)
      if (run.ordered) {
        claimed += 1
        assert(run.count == parts.flatten.distinct.size, parts)
      }
    }
    assert(claimed > 100, s"only $claimed of 500 counted: the test checks too little")
  }
}
