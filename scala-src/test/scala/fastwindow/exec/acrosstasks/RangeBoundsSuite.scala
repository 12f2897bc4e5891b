package fastwindow.exec.acrosstasks

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Ascending, BoundReference, Descending, Literal, NullsFirst, NullsLast, SortOrder, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning
import org.apache.spark.sql.types.{DataType, IntegerType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/**
 * The ranges a window without PARTITION BY is split into: that Spark's hash partitioning sends
 * each range's preimage to the range's partition, that bounds split weighted samples evenly and
 * never between equal keys, and that the integral keys' long comparison finds the same range as
 * Spark's ordering, in both directions, with NULL keys.
 */
class RangeBoundsSuite extends AnyFunSuite {

  // One projection per type (a projection of each value as a literal compiled code per value).
  private val projections = scala.collection.mutable.Map[DataType, UnsafeProjection]()

  private def keyRow(value: Any, dataType: DataType): InternalRow =
    projections.getOrElseUpdate(dataType, UnsafeProjection.create(Array(dataType)))
      .apply(InternalRow(value)).copy()

  test("each range's preimage goes to its partition under Spark's hash partitioning") {
    for (n <- Seq(1, 2, 7, 200, 1000)) {
      val preimages = RangeBounds.hashPreimages(n)
      preimages.zipWithIndex.foreach { case (value, range) =>
        val partition = HashPartitioning(Seq(Literal(value)), n).partitionIdExpression
          .eval(InternalRow.empty)
        assert(partition == range, s"n=$n: $value goes to $partition, not $range")
      }
    }
  }

  test("bounds split weighted samples into even ranges, equal keys in one") {
    val order = new LazilyGeneratedOrdering(Seq(SortOrder(BoundReference(0, LongType, true),
          Ascending)))
    val even = (0 until 1000).map(k => (keyRow(k.toLong, LongType), 1.0))
    assert(RangeBounds.split(even, 4, order).map(_.getLong(0)).toSeq == Seq(249L, 499L, 749L))
    // Half of the weight on one key: it ends one range, and no bound repeats it.
    val skewed = (0 until 100).map(k => (keyRow((if (k < 50) 7 else k).toLong, LongType), 1.0))
    val bounds = RangeBounds.split(skewed, 4, order).map(_.getLong(0)).toSeq
    assert(bounds.distinct == bounds && bounds.head == 7L, bounds)
  }

  test("integral keys compared as longs find the ranges Spark's ordering finds") {
    val random = new Random(7)
    for {
      (dataType, value) <- Seq[(DataType, Random => Any)](
        (LongType, r => r.nextInt(2000).toLong - 1000), (IntegerType, r => r.nextInt(2000) - 1000))
      direction <- Seq(Ascending, Descending)
      nulls <- Seq(NullsFirst, NullsLast)
    } {
      val keyOrder = Seq(SortOrder(BoundReference(0, dataType, true), direction, nulls, Seq.empty))
      val ordering = new LazilyGeneratedOrdering(keyOrder)
      val bounds = RangeBounds.split(
        Seq.fill(500)((keyRow(value(random), dataType), 1.0)), 9, ordering)
      val split = new RangeBounds(9)
      split.set(bounds, keyOrder)
      for (_ <- 0 until 2000) {
        val key = keyRow(if (random.nextInt(20) == 0) null else value(random), dataType)
        val expected = bounds.indexWhere(b => !ordering.gt(key, b)) match {
          case -1 => bounds.length
          case i => i
        }
        assert(split.rangeOf(key) == expected, s"$dataType $direction $nulls: $key")
      }
    }
  }

  test("a hash of the rows: even ranges, each key's computed range the one its bounds give") {
    val keyOrder = Seq(SortOrder(BoundReference(0, IntegerType, false), Ascending))
    val random = new Random(11)
    for (n <- Seq(1, 2, 3, 7, 200, 1000)) {
      val split = new RangeBounds(n)
      split.setEvenInts(keyOrder)
      val searched = new RangeBounds(n) // the same bounds, searched
      val bounds = (0 until n - 1).map(i => split.bound(i)).toArray
      searched.set(bounds, keyOrder)
      val keys = Seq(Int.MinValue, Int.MinValue + 1, -1, 0, 1, Int.MaxValue - 1, Int.MaxValue) ++
        bounds.flatMap(b => Seq(b.getInt(0), b.getInt(0) + 1)) ++ Seq.fill(2000)(random.nextInt())
      keys.foreach { k =>
        val row = keyRow(k, IntegerType)
        assert(split.rangeOf(row) == searched.rangeOf(row), s"n=$n: $k")
      }
      val ends = (Int.MinValue.toLong - 1) +: bounds.map(_.getInt(0).toLong).toSeq
      val widths = (ends :+ Int.MaxValue.toLong).sliding(2).map(w => w(1) - w(0)).toSeq
      assert(widths.max - widths.min <= 1, s"n=$n: $widths")
    }
  }

  test("other keys are compared by Spark's ordering, NULL bounds included") {
    val keyOrder = Seq(SortOrder(BoundReference(0, StringType, true), Ascending))
    val ordering = new LazilyGeneratedOrdering(keyOrder)
    val bounds = Array(keyRow(null, StringType), keyRow(UTF8String.fromString("m"), StringType))
    val split = new RangeBounds(3)
    split.set(bounds, keyOrder)
    assert(split.rangeOf(keyRow(null, StringType)) == 0)
    assert(split.rangeOf(keyRow(UTF8String.fromString("a"), StringType)) == 1)
    assert(split.rangeOf(keyRow(UTF8String.fromString("m"), StringType)) == 1)
    assert(split.rangeOf(keyRow(UTF8String.fromString("z"), StringType)) == 2)
    assert(ordering.lt(bounds(0), bounds(1)))
  }

  test("with PARTITION BY, a skewed key's rows go to every range in order, others whole") {
    val keyOrder = Seq(SortOrder(BoundReference(0, StringType, true), Ascending),
      SortOrder(BoundReference(1, LongType, true), Ascending))
    val unsafe = UnsafeProjection.create(Array[DataType](StringType, LongType))
    def row(key: String, o: Long): InternalRow =
      unsafe(InternalRow(if (key == null) null else UTF8String.fromString(key), o)).copy()
    // NULL and "hot" hold a third of the weight each; 100 other keys share the rest (1% each,
    // less than a quarter of a task's share at 4 tasks).
    val sample = (0 until 300).map { i =>
      (row(if (i % 3 == 0) null else if (i % 3 == 1) "hot" else s"k${i % 100}", i.toLong), 1.0)
    }
    val skewed = RangeSplitExec.skewedKeys(sample, 1, keyOrder, 4, maxKeys = 64)
    assert(skewed.map(k => if (k._1.isNullAt(0)) null else k._1.getUTF8String(0).toString)
      .toSet == Set(null, "hot"))
    val ordering = new LazilyGeneratedOrdering(keyOrder)
    val bounds = new RangeBounds(4, partitionKeys = 1)
    bounds.setSkewed(skewed.map { case (k, rows) => k -> RangeBounds.split(rows, 4, ordering) },
      keyOrder)
    assert(bounds.numSlots == 8)
    for (key <- Seq(null, "hot")) {
      val slots = (0 until 300 by 7).map(o => bounds.rangeOf(row(key, o.toLong)))
      assert(slots.forall(_ >= 0) && slots.map(bounds.groupOf).distinct.size == 1, slots)
      val partitions = slots.map(bounds.partitionOf)
      assert(partitions == partitions.sorted && partitions.distinct == (0 until 4), partitions)
    }
    for (key <- Seq("k2", "k5", "other")) {
      val slots = (0 until 300 by 7).map(o => bounds.rangeOf(row(key, o.toLong)))
      assert(slots.forall(_ < 0) && slots.distinct.size == 1, slots)
      assert((0 until 4).contains(bounds.partitionOf(slots.head)))
    }
    assert(RangeSplitExec.skewedKeys(sample, 1, keyOrder, 1, 64).isEmpty) // one task: nothing to split
  }
}
