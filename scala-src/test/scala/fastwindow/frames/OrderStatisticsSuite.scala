package fastwindow.frames

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/**
 * The frame statistics of holistic aggregates: ranks of a partition's values and the k-th
 * smallest element of a sliding multiset of ranks (percentiles), against sorting; the number and
 * sum of the distinct ids of a sliding multiset (distinct aggregates), against a set of each
 * window; the most frequent ranks of a sliding multiset (modes), against counting each window.
 */
class OrderStatisticsSuite extends AnyFunSuite {

  test("doubleKey orders doubles as Spark does: -0.0 = 0.0, NaN above infinity, all NaNs equal") {
    val ordered = Seq(Double.NegativeInfinity, -1e308, -1.0, -Double.MinPositiveValue, 0.0,
      Double.MinPositiveValue, 1.0, 1e308, Double.PositiveInfinity, Double.NaN)
    val keys = ordered.map(ValueRanks.doubleKey)
    assert(keys == keys.sorted)
    assert(keys.distinct.size == keys.size)
    assert(ValueRanks.doubleKey(-0.0) == ValueRanks.doubleKey(0.0))
    val otherNaN = java.lang.Double.longBitsToDouble(0x7ff0000000000123L)
    assert(ValueRanks.doubleKey(otherNaN) == ValueRanks.doubleKey(Double.NaN))
  }

  test("ranks are positions among the distinct non-null values; nulls have none") {
    val ranks = new ValueRanks
    val values = Seq(Some(5L), None, Some(-2L), Some(5L), Some(7L), None, Some(-2L))
    ranks.start(values.size)
    values.zipWithIndex.foreach { case (v, r) => v.foreach(x => ranks.set(r, x, x.toDouble)) }
    ranks.rank()
    assert(ranks.distinct == 3)
    assert(values.indices.map(ranks.rankOf) == Seq(1, -1, 0, 1, 2, -1, 0))
    assert((0 until 3).map(ranks.value) == Seq(-2.0, 5.0, 7.0))
  }

  test("the radix sort orders signed keys stably with their rows, against a comparison sort") {
    val rng = new Random(10)
    val draws: Seq[Int => Long] = Seq(
      _ => rng.nextLong(),
      _ => rng.nextInt(5).toLong - 2,
      _ => Seq(Long.MinValue, Long.MaxValue, -1L, 0L, 1L)(rng.nextInt(5)),
      _ => ValueRanks.doubleKey(rng.nextGaussian() * 1e6),
      _ => 42L,
      _ => rng.nextInt(1 << 20)
    )
    for (draw <- draws; n <- Seq(0, 1, 2, 17, 3000)) {
      val keys = Array.tabulate(n)(draw)
      val expected = keys.zipWithIndex.sortBy(_._1) // stable: ties keep row order
      val (k, rows, spareKeys, spareRows) =
        (keys.clone(), Array.tabulate(n)(identity), new Array[Long](n), new Array[Int](n))
      val inSpare = KeyedRadixSort.sort(k, rows, spareKeys, spareRows, n)
      val sorted = if (inSpare) spareKeys.zip(spareRows) else k.zip(rows)
      assert(sorted.toSeq == expected.toSeq, s"n=$n")
    }
  }

  test("ranks of random partitions, one ValueRanks reused, against sorting the distinct values") {
    val rng = new Random(13)
    val ranks = new ValueRanks
    for (n <- Seq(500, 3, 2000, 0, 40)) {
      val values = Seq.fill(n)(if (rng.nextInt(5) == 0) None else Some(rng.nextInt(60) - 30L))
      ranks.start(n)
      values.zipWithIndex.foreach { case (v, r) => v.foreach(x => ranks.set(r, x, x.toDouble)) }
      ranks.rank()
      val distinct = values.flatten.distinct.sorted
      assert(ranks.distinct == distinct.size)
      assert(values.indices.map(ranks.rankOf) == values.map(_.fold(-1)(distinct.indexOf(_))))
      assert(distinct.indices.map(ranks.value) == distinct.map(_.toDouble))
    }
  }

  test("k-th smallest of a sliding window of ranks, with weights, against sorting") {
    val rng = new Random(11)
    val counts = new RankCounts // one instance, reset for each case
    for (m <- Seq(1, 2, 7, 64, 1000); width <- Seq(1, 5, 50, 300, 2)) {
      counts.reset(m)
      val ranks = Array.fill(400)(rng.nextInt(m))
      val weight = 1 + rng.nextInt(3)
      for (i <- ranks.indices) {
        counts.add(ranks(i), weight)
        if (i >= width) counts.add(ranks(i - width), -weight)
        val window = ranks.slice(math.max(0, i - width + 1), i + 1)
          .flatMap(Seq.fill(weight)(_)).sorted
        assert(counts.total == window.length)
        for (k <- window.indices) assert(counts.kth(k) == window(k), s"m=$m width=$width i=$i k=$k")
      }
    }
  }

  test("distinct ids of a sliding window of ids, against a set of each window") {
    val rng = new Random(12)
    val counts = new DistinctCounts
    for (m <- Seq(1, 3, 40, 1000); width <- Seq(1, 4, 100)) {
      counts.reset(m)
      val ids = Array.fill(500)(rng.nextInt(m))
      for (i <- ids.indices) {
        counts.add(ids(i))
        if (i >= width) counts.remove(ids(i - width))
        val window = ids.slice(math.max(0, i - width + 1), i + 1)
        assert(counts.distinct == window.toSet.size, s"m=$m width=$width i=$i")
      }
    }
  }

  test("distinct sums of a sliding window of ids, against the sum of each window's set") {
    val rng = new Random(13)
    val counts = new DistinctCounts
    val specials = Seq(Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity, 1e308)
    for (m <- Seq(1, 3, 40, 1000); width <- Seq(1, 4, 100)) {
      val longs = new DistinctSums.OfLongs
      val doubles = new DistinctSums.OfDoubles
      val decimals = new DistinctSums.OfDecimals(20, 2)
      val sums = Seq(longs, doubles, decimals)
      val values = Array.tabulate(m)(id => (rng.nextInt(2001) - 1000).toLong)
      val doubleValues =
        values.map(v => if (rng.nextInt(50) == 0) specials(rng.nextInt(4)) else v / 8.0)
      counts.reset(m)
      sums.foreach(_.reset(m))
      for (id <- 0 until m) {
        longs.define(id, values(id))
        doubles.define(id, doubleValues(id))
        decimals.define(id, org.apache.spark.sql.types.Decimal(values(id), 20, 2))
      }
      val ids = Array.fill(500)(rng.nextInt(m))
      for (i <- ids.indices) {
        if (counts.add(ids(i))) sums.foreach(_.present(ids(i)))
        if (i >= width && counts.remove(ids(i - width))) sums.foreach(_.absent(ids(i - width)))
        val set = ids.slice(math.max(0, i - width + 1), i + 1).toSet
        val where = s"m=$m width=$width i=$i"
        assert(longs.total == set.toSeq.map(values(_)).sum, where)
        assert(decimals.total == org.apache.spark.sql.types.Decimal(set.toSeq.map(values(_)).sum,
            20, 2), where)
        // Every value is a multiple of 1/8 well inside a double's precision: sums are exact.
        val expected = set.toSeq.map(doubleValues(_)).sum
        val total = doubles.total.asInstanceOf[Double]
        assert(total == expected || (total.isNaN && expected.isNaN), where)
      }
      assert(longs.orderFree)
    }
  }

  test("bigint distinct sums are order-free only while the values' magnitudes sum within bigint") {
    val longs = new DistinctSums.OfLongs
    longs.reset(2)
    longs.define(0, Long.MaxValue / 2)
    longs.define(1, -(Long.MaxValue / 2))
    assert(longs.orderFree)
    longs.reset(3)
    longs.define(0, Long.MaxValue / 2)
    longs.define(1, -(Long.MaxValue / 2))
    longs.define(2, Long.MaxValue / 2)
    assert(!longs.orderFree)
    longs.reset(1)
    longs.define(0, Long.MinValue)
    assert(!longs.orderFree)
  }

  test("modes of a sliding window of ranks, against counting each window") {
    val rng = new Random(14)
    val modes = new ModeCounts
    for (m <- Seq(1, 2, 5, 40, 1000); width <- Seq(1, 3, 10, 100)) {
      modes.reset(m)
      val ranks = Array.fill(400)(rng.nextInt(m))
      for (i <- ranks.indices) {
        modes.add(ranks(i))
        if (i >= width) modes.remove(ranks(i - width))
        val counts = ranks.slice(math.max(0, i - width + 1), i + 1).groupBy(identity).map {
          case (rank, occurrences) => rank -> occurrences.length
        }
        val top = counts.values.max
        val tops = counts.collect { case (rank, c) if c == top => rank }
        val where = s"m=$m width=$width i=$i"
        assert(!modes.isEmpty, where)
        assert(modes.tied == (tops.size > 1), where)
        assert(modes.mode(highest = false) == tops.min, where)
        assert(modes.mode(highest = true) == tops.max, where)
      }
      while (!modes.isEmpty) modes.remove(modes.mode(highest = false))
    }
  }

  test("RegisterMaxima holds each register's largest value over a sliding window of pairs") {
    val rng = new scala.util.Random(5)
    for (registers <- Seq(1, 4, 64); width <- Seq(1, 5, 50)) {
      val maxima = new RegisterMaxima(registers, 60)
      val pairs = Array.fill(500)((rng.nextInt(registers), 1 + rng.nextInt(8) * rng.nextInt(8)))
      var values = Array.fill(registers)(0)
      for (i <- pairs.indices) {
        val changed = maxima.add(pairs(i)._1, pairs(i)._2) |
          (i >= width && maxima.remove(pairs(i - width)._1, pairs(i - width)._2))
        val expected = Array.fill(registers)(0)
        pairs.slice(math.max(0, i - width + 1), i + 1).foreach { case (r, v) =>
          expected(r) = math.max(expected(r), v)
        }
        val where = s"registers=$registers width=$width i=$i"
        assert((0 until registers).map(maxima(_)) == expected.toSeq, where)
        assert(changed == !(expected sameElements values), where)
        values = expected
      }
    }
  }
}
