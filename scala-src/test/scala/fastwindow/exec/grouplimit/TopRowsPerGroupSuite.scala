package fastwindow.exec.grouplimit

import scala.collection.mutable
import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Ascending, AttributeReference, Descending, GenericInternalRow, NullsFirst, NullsLast, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.frames.RankLimit
import fastwindow.exec.shared.IntegralOrderKey

/**
 * [[TopRowsPerGroup]], the arena of limits up to 8 rows per group: against a reference (each
 * group's first `limit` rows in order, ties in arrival order), with rows whose sizes change so
 * that rows are written in an evicted row's space, appended and moved; ties that rank keeps held
 * up to twice the limit; its bytes within twice the live rows, and as `bytesAfterOffer` predicts.
 * Each with the rows' order compared on the rows and on the keys kept beside their slots (an
 * integral ORDER BY), and those two against each other over NULLs, both directions and ties.
 */
class TopRowsPerGroupSuite extends AnyFunSuite {

  private val toUnsafe = UnsafeProjection.create(Array[DataType](IntegerType, LongType, StringType))
  private def row(group: Int, order: Long, payload: String): UnsafeRow =
    toUnsafe(new GenericInternalRow(Array[Any](group, order, UTF8String.fromString(payload))))
  private def show(r: InternalRow) = (r.getInt(0), r.getLong(1), r.getUTF8String(2).toString)

  private val byOrder: java.util.Comparator[UnsafeRow] =
    (a, b) => java.lang.Long.compare(a.getLong(1), b.getLong(1))

  private def payload(rng: Random) = rng.alphanumeric.take(rng.nextInt(60)).mkString

  private val schema = Seq(AttributeReference("g", IntegerType)(),
    AttributeReference("o", LongType)(), AttributeReference("s", StringType)())

  /** An arena comparing rows with `byOrder`, or (keyed) the keys of ascending `o` beside slots. */
  private def arena(limit: Int, rank: RankLimit, keyed: Boolean) =
    new TopRowsPerGroup(byOrder, limit, rank,
      if (keyed) IntegralOrderKey(Seq(SortOrder(schema(1), Ascending)), schema) else None)

  private val arenas = Seq(false, true)

  for (limit <- Seq(1, 3, 8); keyed <- arenas) {
    test(s"keeps each group's first $limit rows in order, through evictions, appends and moves" +
      s" (keyed: $keyed)") {
      val rng = new Random(7 + limit)
      val top = arena(limit, RankLimit.RowNumber, keyed)
      var mostGroups = 0
      for (round <- 0 until 3) { // the arena reused after clear
        val groups = 1 + rng.nextInt(5000)
        val rows = Seq.fill(40000)((rng.nextInt(groups), rng.nextInt(1000).toLong, payload(rng)))
        val ids = mutable.HashMap[Int, Int]()
        val sizes = mutable.HashMap[Int, Seq[Long]]().withDefaultValue(Nil)
        rows.foreach { case (g, o, p) =>
          val r = row(g, o, p)
          val id = ids.getOrElseUpdate(g, top.count)
          val admitted = id == top.count || top.admits(id, r)
          val outcome = top.offer(id, r)
          assert(outcome == (if (admitted) TopRowsPerGroup.Held else TopRowsPerGroup.Refused))
          if (admitted) sizes(g) = (r.getSizeInBytes.toLong +: sizes(g)).sorted.takeRight(limit)
        }
        // A stable sort: the first of equal rows comes first.
        val expected = rows.groupBy(_._1).map { case (g, rs) => g -> rs.sortBy(_._2).take(limit) }
        assert(top.count == expected.size, s"round $round")
        ids.foreach { case (g, id) =>
          val kept = (0 until top.rowsOf(id)).map(p => show(top.row(id, p)))
          assert(kept == expected(g), s"round $round, group $g")
        }
        mostGroups = math.max(mostGroups, top.count)
        val arrays =
          math.max(16L, 2L * mostGroups) * (8L + 12L * limit + (if (keyed) 8L * limit else 0L))
        // The live bytes never exceed the largest `limit` rows each group held.
        val largest = sizes.values.map(_.sum).sum
        assert(top.bytes <= math.max(2 * largest, 1L << 16) + arrays, s"round $round")
        top.clear()
        assert(top.count == 0)
      }
    }
  }

  test("bytesAfterOffer is what bytes becomes once a row is held") {
    for (limit <- Seq(1, 4); keyed <- arenas) {
      val top = arena(limit, RankLimit.RowNumber, keyed)
      val rng = new Random(3)
      for (i <- 0 until 20000) {
        val id = if (top.count == 0 || rng.nextInt(3) == 0) top.count else rng.nextInt(top.count)
        val r = row(id, -i, "x" * rng.nextInt(100)) // each row comes first: always held
        val predicted = top.bytesAfterOffer(id, r)
        assert(top.offer(id, r) == TopRowsPerGroup.Held)
        assert(top.bytes == predicted, s"offer #$i, limit $limit")
      }
    }
  }

  for (keyed <- arenas) test(s"rank holds ties up to twice its limit, then overflows; release " +
    s"forgets a group (keyed: $keyed)") {
    val top = arena(2, RankLimit.Rank, keyed)
    def offer(o: Long, p: String = "") = top.offer(0, row(0, o, p))
    def kept = (0 until top.rowsOf(0)).map(p => top.row(0, p).getLong(1))
    assert(offer(5) == TopRowsPerGroup.Held && top.bound(0) == null)
    assert(offer(3) == TopRowsPerGroup.Held && top.bound(0).getLong(1) == 5L)
    assert(offer(5, "tie") == TopRowsPerGroup.Held && kept == Seq(3L, 5L, 5L))
    assert(top.admits(0, row(0, 5, "")) && !top.admits(0, row(0, 6, "")))
    assert(offer(4) == TopRowsPerGroup.Held && kept == Seq(3L, 4L)) // both 5s now rank 3
    assert(offer(4) == TopRowsPerGroup.Held && offer(4) == TopRowsPerGroup.Held)
    assert(kept == Seq(3L, 4L, 4L, 4L))
    assert(offer(4) == TopRowsPerGroup.Overflow && kept == Seq(3L, 4L, 4L, 4L))
    assert(offer(9) == TopRowsPerGroup.Refused)
    assert(top.offer(1, row(1, 9, "b")) == TopRowsPerGroup.Held)
    top.release(0)
    assert(top.rowsOf(0) == TopRowsPerGroup.Released)
    assert(show(top.row(1, 0)) == ((1, 9L, "b")))
  }

  for (keyed <- arenas) test(s"dense_rank keeps the rows of its first values (keyed: $keyed)") {
    val top = arena(2, RankLimit.DenseRank, keyed)
    Seq(7L, 7L, 3L, 9L, 3L).foreach(o => top.offer(0, row(0, o, "")))
    assert((0 until top.rowsOf(0)).map(p => top.row(0, p).getLong(1)) == Seq(3L, 3L, 7L, 7L))
    assert(top.bound(0).getLong(1) == 7L)
    assert(top.offer(0, row(0, 1, "")) == TopRowsPerGroup.Held)
    assert((0 until top.rowsOf(0)).map(p => top.row(0, p).getLong(1)) == Seq(1L, 3L, 3L))
  }

  for (rank <- Seq(RankLimit.RowNumber, RankLimit.Rank, RankLimit.DenseRank);
    direction <- Seq(Ascending, Descending); nulls <- Seq(NullsFirst, NullsLast)) {
    test(s"keys beside the slots keep what the rows' order keeps: $rank, $direction, $nulls") {
      val order = SortOrder(schema(1), direction, nulls, Seq.empty)
      val rowOrder: java.util.Comparator[UnsafeRow] = { (a, b) =>
        (a.isNullAt(1), b.isNullAt(1)) match {
          case (true, true) => 0
          case (true, false) => if (nulls == NullsFirst) -1 else 1
          case (false, true) => if (nulls == NullsFirst) 1 else -1
          case _ =>
            val c = java.lang.Long.compare(a.getLong(1), b.getLong(1))
            if (direction == Ascending) c else -c
        }
      }
      val rng = new Random(rank.hashCode * 31 + direction.hashCode + nulls.hashCode)
      val (byRows, byKeys) = (new TopRowsPerGroup(rowOrder, 3, rank),
        new TopRowsPerGroup(rowOrder, 3, rank, IntegralOrderKey(Seq(order), schema)))
      val extremes = Seq(Long.MinValue, Long.MaxValue, -1L, 0L)
      val ids = mutable.HashMap[Int, Int]()
      for (i <- 0 until 20000) {
        val g = rng.nextInt(200)
        val o: Any = rng.nextInt(10) match {
          case 0 => null
          case 1 => extremes(rng.nextInt(extremes.length))
          case _ => rng.nextInt(6).toLong
        }
        val r = toUnsafe(new GenericInternalRow(Array[Any](g, o, UTF8String.fromString(s"$i"))))
        val id = ids.getOrElseUpdate(g, byRows.count)
        if (id < byRows.count && byRows.rowsOf(id) != TopRowsPerGroup.Released) {
          assert(byRows.admits(id, r) == byKeys.admits(id, r), s"row $i")
        }
        if (id == byRows.count || byRows.rowsOf(id) != TopRowsPerGroup.Released) {
          val outcome = byRows.offer(id, r)
          assert(byKeys.offer(id, r) == outcome, s"row $i")
          if (outcome == TopRowsPerGroup.Overflow) { byRows.release(id); byKeys.release(id) }
        }
      }
      def rows(top: TopRowsPerGroup, g: Int) =
        (0 until math.max(0, top.rowsOf(g))).map(p => top.row(g, p).getUTF8String(2).toString)
      (0 until byRows.count).foreach(id => assert(rows(byKeys, id) == rows(byRows, id), s"$id"))
      assert(byRows.count == 200)
    }
  }
}
