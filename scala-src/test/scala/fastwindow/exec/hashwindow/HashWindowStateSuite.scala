package fastwindow.exec.hashwindow

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Add, BoundReference, Literal, MutableProjection}
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{IntegerType, LongType}
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.exec.shared.MemoryBudget

/**
 * The per-task state of the hash window: [[IntegralSumGuard]] against the exact (BigInt) sums of
 * the positive and negative values of each group, and [[AggregatesPerKey]] (a count per key)
 * against a map, with its memory refusal leaving nothing changed.
 */
class HashWindowStateSuite extends AnyFunSuite {

  /** Rows of (key: int, value: long). */
  private val toRow = UnsafeProjection.create(Seq(
      BoundReference(0, IntegerType, nullable = true),
      BoundReference(1, LongType, nullable = true)))
  private def row(key: Integer, value: java.lang.Long): UnsafeRow =
    toRow(InternalRow(key, value)).copy()

  /** A guard of the sum of column 1, read from the row itself. */
  private def guard = new IntegralSumGuard(row => row, Array(1), Array(8))

  test("the guard trips exactly when a group's positive or negative values leave the long range") {
    val random = new Random(7)
    for (trial <- 0 until 200) {
      val groups = 1 + random.nextInt(4)
      val scale = if (trial % 2 == 0) Long.MaxValue / 3 else Long.MaxValue / 50
      val values = Seq.fill(1 + random.nextInt(12)) {
        (random.nextInt(groups),
          if (random.nextInt(10) == 0) null
          else java.lang.Long.valueOf(((random.nextDouble() * 2 - 1) * scale).toLong))
      }
      val g = guard
      val rows = values.map { case (group, v) => row(group, v) }
      rows.foreach(g.add)
      val tripped = g.mayOverflow(rows.iterator, values.map(_._1).toArray, groups)
      val expected = values.filter(_._2 != null).groupBy(_._1).values.exists { vs =>
        val (pos, neg) = vs.map(v => BigInt(v._2.longValue)).partition(_ >= 0)
        pos.sum > Long.MaxValue || neg.sum < Long.MinValue
      }
      assert(tripped == expected, values)
    }
  }

  test("the guard trips when some order could overflow, though this one does not") {
    // MaxValue + 1 - 1: Spark's order could overflow, so the guard must trip.
    def mayOverflow(values: Seq[Long]): Boolean = {
      val (g, rows) = (guard, values.map(v => row(0, v)))
      rows.foreach(g.add)
      g.mayOverflow(rows.iterator, Array.fill(rows.size)(0), 1)
    }
    assert(mayOverflow(Seq(Long.MaxValue, 1L, -1L)))
    assert(!mayOverflow(Seq(Long.MaxValue - 1, 1L, Long.MinValue)))
  }

  test("groups are told apart only when the task's rows together could overflow") {
    val (g, values) = (guard, Seq(Long.MaxValue - 1, 1L, 5L))
    val rows = values.zipWithIndex.map { case (v, k) => row(k, v) }
    rows.foreach(g.add)
    // Together the positive values pass Long.MaxValue; in groups of their own none does.
    assert(g.tripped && !g.mayOverflow(rows.iterator, Array(0, 1, 2), 3))
    val small = guard
    small.add(row(0, 1L))
    assert(!small.tripped && !small.mayOverflow(Iterator.empty, Array.empty, 1))
  }

  /** A count per key: buffer (count: long), update count + 1. */
  private def counts(budget: MemoryBudget): AggregatesPerKey = {
    val count = BoundReference(0, LongType, nullable = false)
    val update = MutableProjection.create(Seq(Add(count, Literal(1L))))
    new AggregatesPerKey(
      UnsafeProjection.create(Seq(BoundReference(0, IntegerType, nullable = true))),
      Seq(IntegerType),
      UnsafeProjection.create(Seq(Literal(0L)))(InternalRow.empty).copy(),
      update,
      None,
      budget
    )
  }

  private def countOf =
    UnsafeProjection.create(Seq(BoundReference(0, LongType, nullable = false)))

  test("rows are counted per key, NULL a key of its own, and each row knows its group") {
    val keys: Seq[Integer] = Seq.fill(5000)(Random.nextInt(300)).map(k =>
      if (k == 0) null else Integer.valueOf(k))
    val state = counts(new MemoryBudget(None, 0))
    keys.foreach(k => assert(state.add(row(k, 1L))))
    assert(state.finish(countOf))
    assert(state.groupCount == keys.distinct.size)
    val expected = keys.groupBy(identity).map { case (k, v) => k -> v.size.toLong }
    keys.zipWithIndex.foreach { case (k, i) =>
      assert(state.resultsOfRow(i).getLong(0) == expected(k))
    }
  }

  test("a NULL key at any place among integral keys, at the id tables' growth points too") {
    for (nullAt <- 0 to 70) {
      val keys: Seq[Integer] =
        (1 to 70).map(k => Integer.valueOf(k)).patch(nullAt, Seq[Integer](null), 0) ++
          Seq[Integer](null, 5, 70)
      val state = counts(new MemoryBudget(None, 0))
      keys.foreach(k => assert(state.add(row(k, 1L))))
      assert(state.finish(countOf) && state.groupCount == 71, nullAt)
      assert(state.resultsOfRow(nullAt).getLong(0) == 2L)
    }
  }

  test("a refused row changes nothing, and the budget is the cap") {
    val state = counts(new MemoryBudget(None, 3000))
    var added = 0
    while (state.add(row(added, 1L))) added += 1
    assert(added > 0 && added < 100, added)
    assert(state.groupCount == added && (0 until added).forall(i => state.groupOf(i) == i))
    assert(state.peak <= 3000)
  }

  test("results refused memory are not kept, and results granted it are every group's") {
    val unbounded = counts(new MemoryBudget(None, 0))
    (0 until 500).foreach(k => assert(unbounded.add(row(k, 1L))))
    val capped = counts(new MemoryBudget(None, unbounded.peak + 10))
    (0 until 500).foreach(k => assert(capped.add(row(k, 1L))))
    assert(!capped.finish(countOf))
    assert(unbounded.finish(countOf))
    assert((0 until 500).forall(i => unbounded.resultsOfRow(i).getLong(0) == 1L))
  }
}
