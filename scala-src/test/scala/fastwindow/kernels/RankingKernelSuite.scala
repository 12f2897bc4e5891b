package fastwindow.kernels

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.WindowTestKit._

/**
 * row_number, rank, dense_rank, percent_rank, cume_dist and ntile, on both evaluators, against
 * the textbook O(n^2) definitions (which never walk peer groups) and against hand-computed values.
 */
class RankingKernelSuite extends AnyFunSuite {

  private val k = attr("k", IntegerType)
  private val s = attr("s", StringType)
  private val d = attr("d", DoubleType)
  private val schema = Seq(k, s, d)

  private val ntileBuckets = Seq(1, 2, 3, 4, 5, 7, 16, 100, 199, 250)

  private def rankingFunctions(order: Seq[SortOrder]): Seq[Expression] = {
    val keys = order.map(_.child)
    Seq(RowNumber(), Rank(keys), DenseRank(keys), PercentRank(keys), CumeDist()) ++
      ntileBuckets.map(b => NTile(Literal(b)))
  }

  private def layoutFor(order: Seq[SortOrder]): TestPlan =
    layoutOf(rankingFunctions(order).map(win(_, order)), order, schema)

  /**
   * Reference results: `keys(i)` are row i's order keys, rows are sorted by `ord`, so
   * "smaller" means "sorts strictly earlier" and peers are rows whose keys compare equal.
   */
  private def reference(
      keys: IndexedSeq[IndexedSeq[Any]], ord: Ordering[IndexedSeq[Any]]): Results = {
    val n = keys.size
    val firstOfValue = keys.indices.map(j => !(0 until j).exists(m => ord.equiv(keys(m), keys(j))))
    keys.indices.map { i =>
      val smaller = keys.count(o => ord.compare(o, keys(i)) < 0)
      val upTo = keys.count(o => ord.compare(o, keys(i)) <= 0)
      // distinct smaller keys: count rows that are smaller and are the first of their value
      val distinctSmaller =
        keys.indices.count(j => firstOfValue(j) && ord.compare(keys(j), keys(i)) < 0)
      val rank = smaller + 1
      val percentRank = if (n == 1) 0.0 else (rank - 1).toDouble / (n - 1).toDouble
      val ntiles = ntileBuckets.map(b => referenceNTile(i, n, b))
      IndexedSeq[Any](i + 1, rank, distinctSmaller + 1, percentRank,
        upTo.toDouble / n.toDouble) ++ ntiles
    }
  }

  /** ntile(b), 1-based, for 0-based row i of n: the first n % b buckets have one extra row. */
  private def referenceNTile(i: Int, n: Int, b: Int): Int = {
    val size = n / b
    val extra = n % b
    val bigRows = extra * (size + 1)
    if (i < bigRows) i / (size + 1) + 1 else extra + (i - bigRows) / size + 1
  }

  test("reference ntile agrees with hand-computed buckets (guards the reference itself)") {
    def tiles(n: Int, b: Int) = (0 until n).map(referenceNTile(_, n, b))
    assert(tiles(5, 3) == Seq(1, 1, 2, 2, 3))
    assert(tiles(10, 4) == Seq(1, 1, 1, 2, 2, 2, 3, 3, 4, 4))
    assert(tiles(2, 5) == Seq(1, 2))
    assert(tiles(6, 3) == Seq(1, 1, 2, 2, 3, 3))
    assert(tiles(7, 1) == Seq.fill(7)(1))
  }

  private def runAgainstReference(
      order: Seq[SortOrder],
      genRow: (Random, Shape) => InternalRow,
      keyOf: InternalRow => IndexedSeq[Any],
      ord: Ordering[IndexedSeq[Any]],
      seed: Long): Unit = {
    val layout = layoutFor(order)
    val evaluators = flavors.map(f => f -> f.create(layout))
    val r = new Random(seed)
    // Every size 0..200, in a shuffled order so big and tiny partitions alternate on the same
    // (reused) evaluators.
    for (n <- r.shuffle((0 to 200).toVector)) {
      val shape = randomShape(r, n)
      val rows = Vector.fill(n)(genRow(r, shape)).sortBy(keyOf)(ord)
      val expected = reference(rows.map(keyOf), ord)
      // The partition cut into ranges between peer groups, each seeded with the rows and peer
      // groups before it and the window's size (as a window spread over tasks is).
      val keys = rows.map(keyOf)
      val groupStarts = (1 until n).filter(i => !ord.equiv(keys(i - 1), keys(i)))
      val cuts = (0 +: r.shuffle(groupStarts).take(3).sorted :+ n).distinct
      for ((flavor, ev) <- evaluators) {
        val actual = runPartition(ev, layout, rows)
        firstDifference(expected, actual, layout, rows, schema).foreach { diff =>
          fail(s"[$flavor, n=$n, $shape, seed=$seed] $diff")
        }
        for (Seq(from, until) <- cuts.sliding(2) if cuts.length > 2) {
          ev.seed(from, n, groupStarts.count(_ < from) + (if (from > 0) 1 else 0), null)
          val range = runPartition(ev, layout, rows.slice(from, until), seeded = true)
          firstDifference(expected.slice(from, until), range, layout, rows.slice(from, until),
            schema).foreach { diff =>
            fail(s"[$flavor, n=$n, $shape, seed=$seed, rows $from until $until] $diff")
          }
        }
        ev.seed(0, 0, 0, null)
      }
    }
  }

  test("random partitions, ORDER BY one int key (nulls, heavy ties), both evaluators") {
    val order = Seq(asc(k))
    val ord = lexicographic(Seq(sqlOrdering(IntegerType)))
    runAgainstReference(order,
      (r, shape) => row(randomValue(IntegerType, r, shape.copy(specialFraction = 0)), null, null),
      x => IndexedSeq(x.get(0, IntegerType)), ord, seed = 11)
  }

  test("random partitions, ORDER BY int DESC NULLS LAST, string ASC, both evaluators") {
    val order = Seq(desc(k), asc(s))
    val ord =
      lexicographic(Seq(sqlOrdering(IntegerType, ascending = false), sqlOrdering(StringType)))
    runAgainstReference(
      order,
      (r, shape) =>
        row(
          randomValue(IntegerType, r,
            shape.copy(distinct = math.min(shape.distinct, 4), specialFraction = 0)),
          randomValue(StringType, r, shape.copy(distinct = math.min(shape.distinct, 3))),
          null
        ),
      x => IndexedSeq(x.get(0, IntegerType), x.get(1, StringType)),
      ord,
      seed = 12
    )
  }

  test("random partitions, ORDER BY double with NaN, infinities and -0.0, both evaluators") {
    val order = Seq(asc(d))
    val ord = lexicographic(Seq(sqlOrdering(DoubleType)))
    runAgainstReference(order,
      (r, shape) => row(null, null, randomValue(DoubleType, r, shape.copy(specialFraction = 0.5))),
      x => IndexedSeq(x.get(2, DoubleType)), ord, seed = 13)
  }

  /** Results of the functions of `layoutFor(order)` over `rows`, checked equal on both flavors. */
  private def results(order: Seq[SortOrder], rows: Seq[InternalRow]): Results = {
    val layout = layoutFor(order)
    val all = flavors.map(f => runPartition(f.create(layout), layout, rows))
    firstDifference(all(0), all(1), layout, rows, schema).foreach(d => fail(s"twins differ: $d"))
    all(0)
  }

  private def column(res: Results, k: Int): Seq[Any] = res.map(_(k))

  test("hand-computed: ties, nulls first") {
    val keys = Seq[Any](null, null, 1, 1, 2, 3, 3, 3)
    val res = results(Seq(asc(k)), keys.map(v => row(v, null, null)))
    assert(column(res, 0) == Seq(1, 2, 3, 4, 5, 6, 7, 8)) // row_number
    assert(column(res, 1) == Seq(1, 1, 3, 3, 5, 6, 6, 6)) // rank
    assert(column(res, 2) == Seq(1, 1, 2, 2, 3, 4, 4, 4)) // dense_rank
    assert(column(res, 3) == Seq(0, 0, 2, 2, 4, 5, 5, 5).map(_ / 7.0)) // percent_rank
    assert(column(res, 4) == Seq(2, 2, 4, 4, 5, 8, 8, 8).map(_ / 8.0)) // cume_dist
    // ntile(1), (2), (3), (4), (5) over 8 rows
    assert(column(res, 5) == Seq.fill(8)(1))
    assert(column(res, 6) == Seq(1, 1, 1, 1, 2, 2, 2, 2))
    assert(column(res, 7) == Seq(1, 1, 1, 2, 2, 2, 3, 3))
    assert(column(res, 8) == Seq(1, 1, 2, 2, 3, 3, 4, 4))
    assert(column(res, 9) == Seq(1, 1, 2, 2, 3, 3, 4, 5))
    // ntile(16) over 8 rows: one row per bucket
    assert(column(res, 11) == (1 to 8))
  }

  test("hand-computed: one-row partition has percent_rank 0 and cume_dist 1") {
    val res = results(Seq(asc(k)), Seq(row(42, null, null)))
    assert(res == IndexedSeq(IndexedSeq[Any](1, 1, 1, 0.0, 1.0) ++ ntileBuckets.map(_ => 1)))
  }

  test("hand-computed: all rows peers (all equal, all null)") {
    for (v <- Seq[Any](7, null)) {
      val res = results(Seq(asc(k)), Seq.fill(5)(row(v, null, null)))
      assert(column(res, 1) == Seq.fill(5)(1))
      assert(column(res, 2) == Seq.fill(5)(1))
      assert(column(res, 3) == Seq.fill(5)(0.0))
      assert(column(res, 4) == Seq.fill(5)(1.0))
    }
  }

  test("hand-computed: -0.0 and 0.0 are peers, NaN is a peer of NaN") {
    val keys = Seq(Double.NegativeInfinity, -0.0, 0.0, -0.0, 1.5, Double.PositiveInfinity,
      Double.NaN, Double.NaN)
    val res = results(Seq(asc(d)), keys.map(v => row(null, null, v)))
    assert(column(res, 1) == Seq(1, 2, 2, 2, 5, 6, 7, 7))
    assert(column(res, 2) == Seq(1, 2, 2, 2, 3, 4, 5, 5))
    assert(column(res, 4) == Seq(1, 4, 4, 4, 5, 6, 8, 8).map(_ / 8.0))
  }

  test("hand-computed: a null key is not a peer of a non-null key, multi-key peers") {
    val rows =
      Seq[(Any, String)]((null, null), (null, "a"), (null, "a"), (1, null), (1, "a"), (1, "a"))
        .map { case (a, b) => row(a, if (b == null) null else UTF8String.fromString(b), null) }
    val res = results(Seq(asc(k), asc(s)), rows)
    assert(column(res, 1) == Seq(1, 2, 2, 4, 5, 5))
    assert(column(res, 2) == Seq(1, 2, 2, 3, 4, 4))
    assert(column(res, 4) == Seq(1, 3, 3, 4, 6, 6).map(_ / 6.0))
  }

  test("ntile: every (n, buckets) for n <= 60 and buckets <= 45") {
    val order = Seq(asc(k))
    val buckets = 1 to 45
    val layout = layoutOf(buckets.map(b => win(NTile(Literal(b)), order)), order, schema)
    val evs = flavors.map(f => f -> f.create(layout))
    for (n <- 0 to 60; (flavor, ev) <- evs) {
      val res = runPartition(ev, layout, (0 until n).map(i => row(i, null, null)))
      for ((b, slot) <- buckets.zipWithIndex) {
        val expected = (0 until n).map(i => referenceNTile(i, n, b))
        assert(res.map(_(slot)) == expected, s"[$flavor] ntile($b) over $n rows")
        if (n > 0) {
          // min(n, b) buckets, sizes differ by at most one, larger buckets first
          val sizes = expected.groupBy(identity).toSeq.sortBy(_._1).map(_._2.size)
          assert(sizes.size == math.min(n, b))
          assert(sizes == sizes.sorted.reverse && sizes.head - sizes.last <= 1)
        }
      }
    }
  }
}
