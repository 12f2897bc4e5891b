package fastwindow.exec.shared

import scala.util.Random

import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

/**
 * [[GroupIds]] of one integral key: ids in order of first appearance, against a map, for keys
 * that come in order, cycling, clustered, by strides (whole seconds as microseconds, powers of
 * two) and at random; and its table stays as cheap to search for all of them (the slots keep
 * blocks of consecutive values together, which a stride must not turn into long probes).
 */
class GroupIdsSuite extends AnyFunSuite {

  private val toUnsafe = UnsafeProjection.create(Array[DataType](LongType))
  private def key(v: java.lang.Long): UnsafeRow =
    toUnsafe(new GenericInternalRow(Array[Any](v)))

  private val rng = new Random(11)
  private val n = 100000
  private val patterns: Seq[(String, Seq[java.lang.Long])] = Seq(
    "in order" -> (0L until n).map(Long.box),
    "cycling twice" -> ((0L until n) ++ (0L until n)).map(Long.box),
    "descending, negative" -> (0L until n).map(v => Long.box(-v)),
    "whole seconds as microseconds" -> (0L until n).map(v =>
      Long.box(1700000000000000L + v * 1000000L)),
    "stride 16" -> (0L until n).map(v => Long.box(v * 16)),
    "stride 2^20" -> (0L until n).map(v => Long.box(v << 20)),
    "clustered runs" -> (0 until n / 50).flatMap(c =>
      (0L until 50L).map(v => Long.box(c * 1000003L + v))),
    "random, NULL among them" -> (Seq.fill(n)(Long.box(rng.nextLong())) :+ null),
    "extremes" -> Seq(Long.MinValue, Long.MaxValue, 0L, -1L, 1L).map(Long.box)
  )

  for ((name, values) <- patterns) {
    test(s"numbers keys in order of first appearance and finds them cheaply: $name") {
      val ids = new GroupIds.SingleIntegralKey(8)
      val expected = scala.collection.mutable.HashMap[java.lang.Long, Int]()
      values.foreach { v =>
        val k = key(v)
        val found = ids.find(k)
        assert(found == expected.getOrElse(v, -1), s"key $v")
        if (found < 0) {
          expected(v) = expected.size
          assert(ids.add(k) == expected(v))
        }
      }
      assert(ids.count == expected.size)
      expected.foreach { case (v, id) => assert(ids.find(key(v)) == id) }
      // A table at most half full, searched by linear probing, reads 1.5 slots per lookup on
      // average for keys in random slots; here 1.0-3.2 (runs that share blocks of the table
      // overflow into the next block), against ~n/2 where a pattern sends keys to one place.
      assert(ids.meanProbes < 4.0, s"mean probes ${ids.meanProbes}")
    }
  }
}
