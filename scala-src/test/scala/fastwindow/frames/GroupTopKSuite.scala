package fastwindow.frames

import java.util.Comparator

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

/**
 * The rows of a group that a rank-like limit keeps ([[GroupTopK]]), offered as a caller offers
 * them (`admits`, then `add` only if admitted): row_number, rank and dense_rank against sorting
 * the whole group, on random, tied, all-equal and pre-sorted inputs; `bytes` against the rows
 * held; the bound that refuses rows after the last kept one; and the rows held staying within
 * about twice the limit.
 */
class GroupTopKSuite extends AnyFunSuite {
  import GroupTopKSuite._

  private val ranks = Seq(RankLimit.RowNumber, RankLimit.Rank, RankLimit.DenseRank)

  /**
   * Offers every row as a caller would, checking `bytes` against `held` after each add (with
   * `eachAdd`, else once at the end: the check costs as many steps as rows are held).
   */
  private def offerAll(topK: GroupTopK[R], rows: Seq[R], clue: => String,
      eachAdd: Boolean = true): Unit = {
    rows.foreach { r =>
      if (topK.admits(r)) {
        topK.add(r)
        if (eachAdd) assert(topK.bytes == topK.retained.map(weigh).sum, clue)
      }
    }
    assert(topK.bytes == topK.retained.map(weigh).sum, clue)
  }

  /** The rows a limit keeps: stable sort by value, then row_number, rank or dense_rank. */
  private def reference(rank: RankLimit, limit: Int, rows: Seq[R]): Seq[R] = {
    val sorted = rows.sortBy(_.value).toIndexedSeq
    val peer = sorted.indices.map(i => i > 0 && sorted(i).value == sorted(i - 1).value)
    val numbers: Seq[Int] = rank match {
      case RankLimit.RowNumber => sorted.indices.map(_ + 1)
      case RankLimit.Rank => // 1 + rows strictly before: the first peer's row number
        sorted.indices.scanLeft(0)((k, i) => if (peer(i)) k else i + 1).tail
      case RankLimit.DenseRank => // 1 + distinct values strictly before
        sorted.indices.scanLeft(0)((k, i) => if (peer(i)) k else k + 1).tail
    }
    sorted.zip(numbers).collect { case (r, k) if k <= limit => r }
  }

  /** Inputs of size `n`: many, some and nearly no ties, all equal, ascending, descending. */
  private def inputs(rng: Random, n: Int): Seq[(String, Seq[R])] = {
    def draw(range: Int) = Seq.tabulate(n)(i => R(rng.nextInt(range), i))
    Seq(
      "many ties" -> draw(3),
      "some ties" -> draw(100),
      "few ties" -> draw(1000000),
      "all equal" -> Seq.tabulate(n)(i => R(42, i)),
      "ascending" -> Seq.tabulate(n)(i => R(i / 2, i)),
      "descending" -> Seq.tabulate(n)(i => R((n - i) / 2, i))
    )
  }

  test("row_number, rank and dense_rank keep what sorting the whole group keeps") {
    val rng = new Random(21)
    for (rank <- ranks; limit <- Seq(1, 2, 3, 7, 50); n <- Seq(0, 1, 5, 100, 5000);
      (kind, rows) <- inputs(rng, n)) {
      val clue = s"$rank limit=$limit n=$n $kind"
      val topK = new GroupTopK[R](rank, limit, byValue, weigh, keep)
      offerAll(topK, rows, clue, eachAdd = n <= 100)
      val result: Seq[R] = topK.result().toList
      val expected = reference(rank, limit, rows)
      assert(result.map(_.value) == result.map(_.value).sorted, clue)
      rank match {
        case RankLimit.RowNumber =>
          assert(result.size == math.min(n, limit), clue)
          assert(result.map(_.value) == expected.map(_.value), clue)
          assert(result.map(_.id).distinct.size == result.size, clue)
          assert(result.forall(r => rows(r.id) == r), clue)
        case _ =>
          assert(result.sortBy(r => (r.value, r.id)) == expected.sortBy(r => (r.value, r.id)), clue)
      }
    }
  }

  test("bytes is the weight of the rows held after every add") {
    val rng = new Random(22)
    for (rank <- ranks; limit <- Seq(1, 3, 50)) {
      val topK = new GroupTopK[R](rank, limit, byValue, weigh, keep)
      // offerAll checks bytes against held after each add.
      offerAll(topK, Seq.tabulate(3000)(i => R(rng.nextInt(200), i)), s"$rank limit=$limit")
      topK.result()
      assert(topK.bytes == topK.retained.map(weigh).sum, s"$rank limit=$limit after result()")
    }
  }

  test("after a cut reaching the limit, rows after the last kept one are refused") {
    val rng = new Random(23)
    val rows = Seq.tabulate(1000)(i => R(10 + rng.nextInt(1000), i))
    val best = rows.map(_.value).min

    val first = new GroupTopK[R](RankLimit.RowNumber, 1, byValue, weigh, keep)
    offerAll(first, rows, "row_number")
    assert(first.result().toList.map(_.value) == Seq(best))
    assert(!first.admits(R(best, -1)), "row_number: a row equal to the best cannot be first")
    assert(!first.admits(R(best + 1, -1)))
    assert(first.admits(R(best - 1, -1)), "row_number: a strictly smaller row is the new first")

    val ranked = new GroupTopK[R](RankLimit.Rank, 1, byValue, weigh, keep)
    offerAll(ranked, rows, "rank")
    assert(ranked.admits(R(best, -1)), "rank: a row tied with the best has rank 1")
    assert(!ranked.admits(R(best + 1, -1)))
    assert(ranked.admits(R(best - 1, -1)))
  }

  test("row_number with limit 3 holds at most 2 * 3 + 1 rows at any point") {
    val rng = new Random(24)
    val values = rng.shuffle((0 until 100000).toVector)
    val topK = new GroupTopK[R](RankLimit.RowNumber, 3, byValue, weigh, keep)
    var maxHeld = 0
    values.zipWithIndex.foreach { case (v, i) =>
      val r = R(v, i)
      if (topK.admits(r)) topK.add(r)
      maxHeld = math.max(maxHeld, topK.held.size)
      assert(maxHeld <= 2 * 3 + 1, s"after row $i")
    }
    assert(topK.result().toList.map(_.value) == Seq(0, 1, 2))
  }
}

object GroupTopKSuite {

  /** A row: ordered by `value` only, so ties exist and `id` tells tied rows apart. */
  final case class R(value: Int, id: Int)

  val byValue: Comparator[R] = (a: R, b: R) => Integer.compare(a.value, b.value)
  val weigh: R => Long = r => (r.value & 7) + 1L

  /** Rows are immutable here: a copy is the row itself. */
  val keep: (R, R) => R = (row, _) => row
}
