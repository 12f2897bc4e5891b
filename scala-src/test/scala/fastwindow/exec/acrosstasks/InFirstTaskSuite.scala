package fastwindow.exec.acrosstasks

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

class InFirstTaskSuite extends AnyFunSuite {

  test("sorted iterators merge into one order, ties in the iterators' order") {
    val random = new Random(7)
    (1 to 200).foreach { _ =>
      val parts = Seq.fill(random.nextInt(6)) {
        Seq.fill(random.nextInt(30))(random.nextInt(20)).sorted
      }
      // (value, part): the order on values alone leaves ties to the merge.
      val tagged = parts.zipWithIndex.map { case (p, i) => p.map(v => (v, i)) }
      val merged =
        InFirstTask.merged(tagged.map(_.iterator), Ordering.by[(Int, Int), Int](_._1)).toList
      assert(merged == tagged.flatten.sortBy(_._1)) // sortBy is stable: parts in order on ties
    }
  }

  test("asking whether there is more does not move past the row just returned") {
    val a = Iterator(1, 3)
    val b = Iterator(2)
    val merged = InFirstTask.merged(Seq(a, b), Ordering.Int)
    assert(merged.next() == 1 && merged.hasNext && a.hasNext) // 3 not taken from `a` yet
    assert(merged.toList == List(2, 3))
  }
}
