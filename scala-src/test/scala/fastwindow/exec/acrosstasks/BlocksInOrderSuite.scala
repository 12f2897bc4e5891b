package fastwindow.exec.acrosstasks

import scala.util.Random

import org.apache.spark.SparkException
import org.apache.spark.sql.catalyst
  .expressions.{Ascending, AttributeReference, Descending, GenericInternalRow, NullsFirst, NullsLast, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{DataType, LongType}
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.exec.shared.IntegralOrderKey

/**
 * [[BlocksInOrder]] and the runs the map tasks follow ([[KeyRunTracker]]), without Spark: a
 * range's rows dealt to map tasks, each task's run summarised; whenever the blocks get an order,
 * reading them in it gives the rows sorted (without ties when strict), and rows cut in order into
 * contiguous pieces always get one, for every direction and NULL ordering.
 */
class BlocksInOrderSuite extends AnyFunSuite {

  private val schema = Seq(AttributeReference("o", LongType)())
  private val toUnsafe = UnsafeProjection.create(Array[DataType](LongType))
  private def row(key: Option[Long]): UnsafeRow =
    toUnsafe(new GenericInternalRow(Array[Any](key.map(Long.box).orNull))).copy()

  private val orders = for {
    direction <- Seq(Ascending, Descending)
    nulls <- Seq(NullsFirst, NullsLast)
  } yield SortOrder(schema.head, direction, nulls, Seq.empty)

  private def keyOf(order: SortOrder) = IntegralOrderKey.first(Seq(order), schema).get

  private def summary(rows: Seq[UnsafeRow], key: IntegralOrderKey): RangeSummary = {
    val tracker = new KeyRunTracker(key)
    rows.foreach(tracker.offer)
    RangeSummary(rows.length, null, overflowed = false, Array.empty, Array.empty, null,
      Array.empty, Array.empty, run = if (rows.isEmpty) null else tracker.result)
  }

  private def sorted(rows: Seq[UnsafeRow], key: IntegralOrderKey, strict: Boolean): Boolean =
    rows.zip(rows.drop(1)).forall { case (a, b) =>
      val c = key.compare(a.isNullAt(0), a.getLong(0), b.isNullAt(0), b.getLong(0))
      c < 0 || (c == 0 && !strict)
    }

  private def randomKeys(rng: Random, n: Int): Seq[Option[Long]] = {
    val span = 1 + rng.nextInt(3 * n + 1)
    Seq.fill(n)(if (rng.nextInt(10) == 0) None else Some(rng.nextInt(span).toLong - span / 2))
  }

  /** The blocks' rows read in the order `ofRange` gives, or None when it gives none. */
  private def read(maps: Seq[Seq[UnsafeRow]], key: IntegralOrderKey,
      strict: Boolean): Option[Seq[UnsafeRow]] =
    Option(BlocksInOrder.ofRange(3, maps.map(m => if (m.isEmpty) null else summary(m, key)),
        key, strict)).map { blocks =>
      assert(blocks.forall(_._1 == 3))
      assert(blocks.map(_._2).sorted == maps.indices.filter(maps(_).nonEmpty))
      blocks.flatMap { case (_, m) => maps(m) }
    }

  test("blocks given an order read their rows sorted; runs in order always get one") {
    val rng = new Random(7)
    for (order <- orders; strict <- Seq(false, true); _ <- 0 until 200) {
      val key = keyOf(order)
      val keys = randomKeys(rng, rng.nextInt(40))
      val byOrder: Ordering[UnsafeRow] = (a, b) =>
        key.compare(a.isNullAt(0), a.getLong(0), b.isNullAt(0), b.getLong(0))
      val numMaps = 1 + rng.nextInt(5)
      // Dealt at random: an order, when given, must be a true one.
      val dealt = Seq.fill(numMaps)(Seq.newBuilder[UnsafeRow])
      keys.foreach(k => dealt(rng.nextInt(numMaps)) += row(k))
      val maps = dealt.map(_.result())
      read(maps, key, strict).foreach { rows =>
        assert(sorted(rows, key, strict), (order, strict, maps.map(_.map(r => r.get(0, LongType)))))
      }
      // Cut in order into contiguous pieces dealt to maps at random: always in order, unless
      // strict and a tie.
      val inOrder = keys.map(row).sorted(byOrder)
      val cuts = (Seq(0, inOrder.length) ++ Seq.fill(numMaps - 1)(rng.nextInt(inOrder.length + 1)))
        .sorted
      val pieces = rng.shuffle(cuts.zip(cuts.drop(1)).map { case (a, b) => inOrder.slice(a, b) })
      val hasTies = !sorted(inOrder, key, strict = true)
      assert(read(pieces, key, strict).isDefined == (!strict || !hasTies), (order, strict, keys))
      read(pieces, key, strict).foreach(rows => assert(sorted(rows, key, strict)))
    }
  }

  private def ks(keys: Long*): Seq[UnsafeRow] = keys.map(k => row(Some(k)))

  test("a run that is not in order, or overlaps another, gets no order") {
    val key = keyOf(orders.head) // ascending, NULLs first
    assert(read(Seq(ks(1, 2, 3), ks(4, 5)), key, strict = true).isDefined)
    assert(read(Seq(ks(4, 5), ks(1, 2, 3)), key, strict = true).map(_.map(_.getLong(0))) ==
      Some(Seq(1L, 2L, 3L, 4L, 5L)))
    assert(read(Seq(ks(1, 3, 2), ks(4, 5)), key, strict = false).isEmpty)
    assert(read(Seq(ks(1, 2, 4), ks(3, 5)), key, strict = false).isEmpty)
    // Meeting at one key: a tie across blocks, in order only when ties may come in any order.
    assert(read(Seq(ks(1, 2, 3), ks(3, 5)), key, strict = false).isDefined)
    assert(read(Seq(ks(1, 2, 3), ks(3, 5)), key, strict = true).isEmpty)
    assert(read(Seq(Seq(row(None), row(None)), ks(1, 5)), key, strict = false).isDefined)
    assert(read(Seq(ks(1, 5), Seq(row(Some(0)), row(None))), key, strict = false).isEmpty)
    // A map task that did not follow its runs.
    val unknown = RangeSummary(2, null, overflowed = false, Array.empty, Array.empty, null,
      Array.empty, Array.empty)
    assert(BlocksInOrder.ofRange(0, Seq(unknown), key, strict = false) == null)
  }

  test("rows read in order are checked again as they come") {
    val key = keyOf(orders.head)
    val rows = Seq(Some(1L), Some(2L), Some(2L), Some(1L)).map(row)
    assert(KeyRun.checked(rows.take(3).iterator, key, strict = false).length == 3)
    intercept[SparkException](KeyRun.checked(rows.take(3).iterator, key, strict = true).length)
    intercept[SparkException](KeyRun.checked(rows.iterator, key, strict = false).length)
  }
}
