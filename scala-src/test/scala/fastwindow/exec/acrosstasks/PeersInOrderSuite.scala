package fastwindow.exec.acrosstasks

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, AttributeReference, SortOrder, UnsafeProjection}
import org.apache.spark.sql.types.LongType
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.exec.shared.RowOrderings

/**
 * A range sorted by its key alone comes out of [[PeersInOrder]] in the tie-break's order: the
 * order of the whole row, whatever order the peers came in. (A group too large to hold goes to
 * Spark's sorter, tested with Spark in tests/test_across_tasks_ties.py.)
 */
class PeersInOrderSuite extends AnyFunSuite {

  private val key = AttributeReference("key", LongType)()
  private val other = AttributeReference("other", LongType)()
  private val output = Seq(key, other)
  private val byKey = Seq(SortOrder(key, Ascending))
  private val tieBreak = RangeOrder.withTieBreak(byKey, output)

  private def inOrder(rows: Seq[(Long, Long)]): Seq[(Long, Long)] = {
    val project = UnsafeProjection.create(output, output)
    // The producer reuses its row, as Spark's sort does.
    val input = rows.iterator.map { case (k, o) => project(InternalRow(k, o)) }
    new PeersInOrder(
      input,
      project,
      RowOrderings.ordering(byKey, output, interpreted = false),
      RowOrderings.ordering(tieBreak, output, interpreted = true),
      () => fail("no group here is too large to hold")
    )
      .map(r => (r.getLong(0), r.getLong(1))).toList
  }

  test("each group of peers comes out ordered by the other columns, groups in key order") {
    val random = new Random(7)
    for (_ <- 1 to 50) {
      val rows = Seq.fill(random.nextInt(300))((random.nextInt(20).toLong, random.nextLong()))
      val byKeyOnly = rows.sortBy(_._1) // stable: peers keep a random order
      assert(inOrder(byKeyOnly) == rows.sorted)
    }
  }

  test("a group larger than the rows held at first, single rows and no rows") {
    val rows = (0L until 100L).map(i => (1L, 100 - i)) ++ Seq((2L, 5L), (3L, 1L))
    assert(inOrder(rows) == rows.sorted)
    assert(inOrder(Seq((4L, 4L))) == Seq((4L, 4L)))
    assert(inOrder(Nil) == Nil)
  }
}
