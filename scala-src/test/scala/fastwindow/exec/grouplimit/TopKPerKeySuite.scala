package fastwindow.exec.grouplimit

import scala.util.Random

import org.apache.spark.sql.catalyst
  .expressions.{AttributeReference, BoundReference, GenericInternalRow, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.Ascending
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.exec.shared.MemoryBudget
import fastwindow.frames.RankLimit

/**
 * [[TopKPerKey]] against a reference (each group sorted, cut by its rank limit), over orders with
 * many ties, for every rank kind and limits in the arena and beyond it: groups move from the arena
 * to objects of their own on a tie that rank and dense_rank keep, with and without the integral
 * bounds that refuse most rows.
 */
class TopKPerKeySuite extends AnyFunSuite {

  private val toUnsafe = UnsafeProjection.create(Array[DataType](IntegerType, LongType, LongType))
  private val schema = Seq(AttributeReference("k", IntegerType)(),
    AttributeReference("o", LongType)(), AttributeReference("id", LongType)())
  private val byOrder: java.util.Comparator[UnsafeRow] =
    (a, b) => java.lang.Long.compare(a.getLong(1), b.getLong(1))

  private def kept(rows: Seq[(Int, Long, Long)], rank: RankLimit, limit: Int): Set[(Long, Long)] =
    rows.groupBy(_._1).values.flatMap { group =>
      val sorted = group.sortBy(_._2).toArray
      val order: java.util.Comparator[(Int, Long, Long)] =
        (a, b) => java.lang.Long.compare(a._2, b._2)
      sorted.take(rank.kept(sorted, sorted.length, limit, order)).map(r => (r._2, r._3))
    }.toSet

  for (rank <- Seq(RankLimit.RowNumber, RankLimit.Rank, RankLimit.DenseRank);
    bounded <- Seq(false, true)) {
    test(s"$rank keeps the reference's rows, ties included (integral bounds: $bounded)") {
      val rng = new Random(rank.hashCode + (if (bounded) 1 else 0))
      for (trial <- 0 until 12) {
        val limit =
          Seq(1, 2, 3, 5, TopRowsPerGroup.MaxLimit, TopRowsPerGroup.MaxLimit + 1)(trial % 6)
        val keys = 1 + rng.nextInt(300)
        val values = 1 + rng.nextInt(40)
        val rows =
          Seq.tabulate(5000)(i => (rng.nextInt(keys), rng.nextInt(values).toLong, i.toLong))
        val bounds = if (!bounded) None
        else IntegralOrderBounds(Seq(SortOrder(schema(1), Ascending)), schema, rank.keepsTies)
        val top = new TopKPerKey(
          UnsafeProjection.create(Seq(BoundReference(0, IntegerType, nullable = false))),
          Seq(IntegerType), rank, limit, byOrder, bounds, new MemoryBudget(None, 0L))
        rows.foreach { case (k, o, id) =>
          assert(top.offer(toUnsafe(new GenericInternalRow(Array[Any](k, o, id)))))
        }
        val given = top.keptRows(top.groupIds.iterator).map(r => (r.getLong(1), r.getLong(2)))
          .toList
        assert(given.toSet == kept(rows, rank, limit), s"trial $trial, limit $limit")
        assert(given.size == given.toSet.size)
      }
    }
  }
}
