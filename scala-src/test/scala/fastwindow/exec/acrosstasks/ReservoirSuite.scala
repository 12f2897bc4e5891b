package fastwindow.exec.acrosstasks

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.scalatest.funsuite.AnyFunSuite

/**
 * The key sample's reservoir: uniform (each row kept with probability size / rows), the same
 * sample whether rows come one by one or in batches of any size, and batch rows read only when
 * kept.
 */
class ReservoirSuite extends AnyFunSuite {

  private def rows(n: Int): IndexedSeq[InternalRow] = (0 until n).map(i => InternalRow(i))

  private def sampleOf(reservoir: Reservoir): (Long, Seq[Int]) = {
    val (count, kept) = reservoir.result
    (count, kept.map(_.getInt(0)).toSeq)
  }

  test("fewer rows than the size: all of them, in order") {
    val reservoir = new Reservoir(10, seed = 1)
    rows(7).foreach(reservoir.offerRow)
    assert(sampleOf(reservoir) == (7L, 0 until 7))
  }

  test("rows one by one and in batches give the same sample; batches read only kept rows") {
    val random = new Random(3)
    for (seed <- 0 until 20; size <- Seq(1, 5, 60); n <- Seq(59, 60, 61, 5000)) {
      val all = rows(n)
      val byRow = new Reservoir(size, seed)
      all.foreach(byRow.offerRow)
      val byBatch = new Reservoir(size, seed)
      var read = 0
      var at = 0
      while (at < n) {
        val batch = math.min(n - at, random.nextInt(700))
        val base = at
        byBatch.offerBatch(batch, i => { read += 1; all(base + i) })
        at += batch
      }
      assert(sampleOf(byRow) == sampleOf(byBatch), s"seed $seed size $size rows $n")
      assert(read <= math.min(n, size * (2 + 2 * math.log(n.toDouble / size + 1))), read)
    }
  }

  test("each row is kept with probability size / rows") {
    val (n, size, trials) = (200, 20, 4000)
    val counts = new Array[Int](n)
    for (seed <- 0 until trials) {
      val reservoir = new Reservoir(size, seed)
      rows(n).grouped(37).foreach(b => reservoir.offerBatch(b.length, b))
      sampleOf(reservoir)._2.foreach(i => counts(i) += 1)
    }
    val expected = trials.toDouble * size / n // 400, standard deviation about 19
    assert(counts.forall(c => math.abs(c - expected) < 6 * 19), counts.toSeq)
    // The first rows (which fill the reservoir) and the last are no likelier than the middle.
    val (first, last) = (counts.take(20).sum / 20.0, counts.takeRight(20).sum / 20.0)
    assert(math.abs(first - expected) < 20 && math.abs(last - expected) < 20, (first, last))
  }
}
