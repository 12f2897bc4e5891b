package fastwindow.exec.grouplimit

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow

import org.apache.spark.sql.catalyst
  .expressions.{BoundReference, GenericInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.exec.shared.MemoryBudget
import fastwindow.frames.RankLimit

/**
 * [[PartialGroupLimit]] with its [[HoldingJudge]] over key orders a prefix of the task cannot
 * tell apart: whatever it decides, every key's top rows are among its output (all a partial limit
 * must give), and it holds where holding drops rows and passes rows on where it would not.
 */
class PartialGroupLimitSuite extends AnyFunSuite {

  private val Step = 4096L
  private val toUnsafe = UnsafeProjection.create(Array[DataType](IntegerType, LongType))

  /** Later rows come first in the limit's order (the latest row of each key). */
  private val latestFirst: java.util.Comparator[UnsafeRow] =
    (a, b) => java.lang.Long.compare(b.getLong(1), a.getLong(1))

  private case class Outcome(output: Seq[(Int, Long)], passed: Int, resumed: Int)

  /** Spark's way for the rest of a task: each key's `limit` latest rows (orders are unique). */
  private def sortedLimit(limit: Int)(rest: Iterator[UnsafeRow]): Iterator[InternalRow] =
    rest.map(r => (r.getInt(0), r.getLong(1))).toList.groupBy(_._1).values
      .flatMap(_.sortBy(-_._2).take(limit))
      .map { case (k, i) => toUnsafe(new GenericInternalRow(Array[Any](k, i))).copy() }.iterator

  private def run(keys: Seq[Int], limit: Int, rank: RankLimit = RankLimit.RowNumber,
      sorts: Boolean = false): Outcome = {
    val groups = new TopKPerKey(
      UnsafeProjection.create(Seq(BoundReference(0, IntegerType, nullable = false))),
      Seq(IntegerType), rank, limit, latestFirst, None, new MemoryBudget(None, 0L))
    val judge = PartialGroupLimit.judge(groups, limit, Step)
    var (passed, resumed) = (0, 0)
    val rows = keys.iterator.zipWithIndex.map { case (k, i) =>
      toUnsafe(new GenericInternalRow(Array[Any](k, i.toLong)))
    }
    val sortRest = if (sorts && !groups.keepsRowsInArena) Some(sortedLimit(limit) _) else None
    val output = new PartialGroupLimit(rows, groups, Some(judge), () => (), () => passed += 1,
      () => resumed += 1, sortRest).map(r => (r.getInt(0), r.getLong(1))).toList
    Outcome(output, passed, resumed)
  }

  /** Every key's `limit` latest rows are in the output, each row at most once. */
  private def assertKeepsTopRows(keys: Seq[Int], limit: Int, out: Outcome): Unit = {
    assert(out.output.distinct.size == out.output.size)
    val given = out.output.toSet
    keys.zipWithIndex.groupBy(_._1).foreach { case (k, rows) =>
      rows.map(_._2.toLong).sorted.takeRight(limit).foreach { i =>
        assert(given.contains((k, i)), s"key $k row $i missing")
      }
    }
  }

  private val n = 200000

  /** A limit held as objects of their own, not in an arena. */
  private val ObjectLimit = TopRowsPerGroup.MaxLimit + 1

  test("keys cycling, limits held as objects: holding starts again once they do") {
    // A cycle long enough to pay (100 rows per key: five in six dropped).
    for (sorts <- Seq(false, true)) {
      val keys = Seq.tabulate(n)(_ % 2000)
      val out = run(keys, ObjectLimit, sorts = sorts)
      assertKeepsTopRows(keys, ObjectLimit, out)
      assert(out.resumed >= 1, s"passed ${out.passed}, output ${out.output.size}")
      // Spark's sorted partial limit gives cycle x limit rows (of 200,000); the rows passed
      // before the keys came back often enough to pay are the price of not knowing the future.
      assert(out.output.size < n / 2, s"${out.output.size} rows")
    }
  }

  test("limits kept in an arena hold a cycle of keys up to their bet, and drop against it") {
    val bet = (PartialGroupLimit.ArenaBetSteps * Step).toInt
    for (limit <- Seq(1, 3); cycle <- Seq(20000, bet)) {
      val keys = Seq.tabulate(math.max(n, 4 * bet))(_ % cycle)
      val out = run(keys, limit)
      assertKeepsTopRows(keys, limit, out)
      assert(out.passed == 0 && out.output.size == cycle * limit,
        s"limit $limit, cycle $cycle: passed ${out.passed}")
    }
  }

  test("a limit held as objects over more keys than a cache holds, cycling: the rest sorted") {
    val keys = Seq.tabulate(36 * 40000)(_ % 40000)
    val out = run(keys, ObjectLimit, sorts = true)
    assertKeepsTopRows(keys, ObjectLimit, out)
    // Passed until holding 17 rows per key would drop two rows in five, then the rest sorted
    // and limited (Spark's sorted partial limit gives 17 rows per key, 680,000).
    assert(out.resumed == 1 && out.output.size < keys.size * 19 / 20, out.output.size)
  }

  test("distinct keys: rows are passed on, not held (limits in an arena after their bet)") {
    val bet = (PartialGroupLimit.ArenaBetSteps * Step).toInt
    val keys = Seq.tabulate(bet + n)(identity)
    for (limit <- Seq(1, 3)) {
      val out = run(keys, limit)
      assertKeepsTopRows(keys, limit, out)
      assert(out.passed > n * 9 / 10 && out.passed <= n && out.resumed == 0, out.passed)
    }
    val objects = run(keys.take(n), ObjectLimit)
    assert(objects.passed > n * 9 / 10 && objects.resumed == 0, objects.passed)
  }

  test("keys repeating within a few rows: held from the first row to the last") {
    // 4 rows per key in a step for row_number, 16 for a top-3 (three rows in four dropped).
    val rng = new Random(5)
    for ((limit, distinct) <- Seq(1 -> 1000, 3 -> 250)) {
      val keys = Seq.fill(n)(rng.nextInt(distinct))
      val out = run(keys, limit)
      assertKeepsTopRows(keys, limit, out)
      assert(out.passed == 0 && out.output.size == distinct * limit, s"limit $limit")
    }
  }

  test("random mixes of runs, cycles, distinct keys and repeats: every key's top rows given") {
    val rng = new Random(11)
    for (trial <- 0 until 20) {
      val keys = Seq.fill(1 + rng.nextInt(6)) {
        val len = rng.nextInt(40000)
        val base = rng.nextInt(1 << 20)
        rng.nextInt(4) match {
          case 0 => Seq.tabulate(len)(i => base + i) // distinct
          case 1 => Seq.tabulate(len)(i => i % (1 + rng.nextInt(10000))) // cycling
          case 2 => Seq.tabulate(len)(i => base + i / 20) // runs
          case _ => Seq.fill(len)(rng.nextInt(1 + rng.nextInt(5000))) // random
        }
      }.flatten
      val limit = Seq(1, 2, 3, ObjectLimit)(rng.nextInt(4))
      val rank = Seq(RankLimit.RowNumber, RankLimit.Rank, RankLimit.DenseRank)(rng.nextInt(3))
      assertKeepsTopRows(keys, limit, run(keys, limit, rank, sorts = trial % 2 == 0))
    }
  }
}
