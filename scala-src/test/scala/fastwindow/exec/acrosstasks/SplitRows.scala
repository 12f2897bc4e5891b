package fastwindow.exec.acrosstasks

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Ascending, AttributeReference, Descending, NullsFirst, NullsLast, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.types.{DataType, LongType}

/**
 * Random rows of a window without PARTITION BY split as the driver sees them, for the property
 * suites of the combine: rows (key, v, id) with tied and NULL keys and NULL values, cut at peer
 * boundaries into contiguous shuffle ranges, each task reading one or more of them, each range's
 * rows spread over map tasks that offer them in their own order; summarised by
 * [[RangeSummarizer]] per map task and range, and read per task by [[RangeSummary.ofTasks]] as
 * one of up to three groups (skewed keys: a group's slots follow the previous group's).
 *
 * @param tasks       each task's rows in its own order: the window's order (`ordering`), peers
 *                    in the order its task reads them (shuffle range, then map task, then arrival)
 * @param summaries   each task's summary, as the driver combines them
 */
final case class SplitRows(tasks: IndexedSeq[IndexedSeq[UnsafeRow]],
    summaries: Array[RangeSummary]) {
  def all: IndexedSeq[UnsafeRow] = tasks.flatten

  /** Where each task's rows start in `all`, and last the number of rows. */
  def starts: IndexedSeq[Int] = tasks.map(_.length).scanLeft(0)(_ + _)
}

object SplitRows {
  val key: AttributeReference = AttributeReference("key", LongType)()
  val v: AttributeReference = AttributeReference("v", LongType)()
  val id: AttributeReference = AttributeReference("id", LongType, nullable = false)()
  val input: Seq[AttributeReference] = Seq(key, v, id)

  private val toUnsafe = UnsafeProjection.create(Array[DataType](LongType, LongType, LongType))

  def row(k: java.lang.Long, value: java.lang.Long, i: Long): UnsafeRow =
    toUnsafe(InternalRow(k, value, i)).copy()

  def key(row: InternalRow): Option[Long] = if (row.isNullAt(0)) None else Some(row.getLong(0))
  def value(row: InternalRow): Option[Long] = if (row.isNullAt(1)) None else Some(row.getLong(1))

  /** The window's ORDER BY key in a random direction, nulls first or last. */
  def randomOrder(random: Random): SortOrder = SortOrder(key,
    if (random.nextBoolean()) Ascending else Descending,
    if (random.nextBoolean()) NullsFirst else NullsLast, Seq.empty)

  /**
   * Random values: small ones, or near Long.MaxValue and Long.MinValue (sums that overflow in
   * some orders and not in others), NULL among them.
   */
  def randomRows(random: Random, wideKeys: Boolean): IndexedSeq[UnsafeRow] = {
    val n = random.nextInt(40)
    val keys = 1 + random.nextInt(12)
    val nulls = random.nextInt(4) * 0.1
    val huge = random.nextInt(3)
    val big = 4000000000000000000L
    (0 until n).map { i =>
      val k: java.lang.Long =
        if (random.nextDouble() < nulls) null
        else if (wideKeys && random.nextInt(8) == 0) {
          if (random.nextBoolean()) Long.MaxValue - random.nextInt(3) else Long.MinValue + 1
        } else random.nextInt(keys).toLong
      val value: java.lang.Long =
        if (random.nextDouble() < nulls) null
        else huge match {
          case 0 => random.nextInt(201) - 100L
          case 1 => if (random.nextBoolean()) big else -big
          case _ => Seq(Long.MaxValue - random.nextInt(3), Long.MinValue + random.nextInt(3),
              big, -big, random.nextInt(5).toLong)(random.nextInt(5))
        }
      row(k, value, i)
    }
  }

  /**
   * `rows` split: sorted by `keyOrder` (the ORDER BY alone), their peer groups cut into up to
   * six shuffle ranges (some empty), read by tasks of one or two ranges each, each range's rows
   * dealt to up to four map tasks that offer them sorted by `ordering` (the summaries' order), in
   * reverse, shuffled or in sorted runs; each task's rows then sorted by `ordering`, stably.
   */
  def split(random: Random, rows: IndexedSeq[UnsafeRow], keyOrder: SortOrder,
      ordering: Ordering[InternalRow], shape: SummaryShape): SplitRows = {
    val keyOrdering = new LazilyGeneratedOrdering(Seq(keyOrder), input)
    val sorted = rows.sorted(keyOrdering)
    val peers = groups(sorted, (a: UnsafeRow, b: UnsafeRow) => keyOrdering.compare(a, b) == 0)
    val numRanges = 1 + random.nextInt(6)
    val cuts = (Seq(0, peers.length) ++ Seq.fill(numRanges - 1)(random.nextInt(peers.length + 1)))
      .sorted
    val ranges = cuts.sliding(2).map { case Seq(a, b) => peers.slice(a, b).flatten }.toIndexedSeq
    val numMaps = 1 + random.nextInt(4)
    // parts(r)(m): the rows map task m offers to range r, in the order it offers them.
    val parts = ranges.map { rangeRows =>
      val byMap = rangeRows.groupBy(_ => random.nextInt(numMaps))
      (0 until numMaps).map(m => offered(random, byMap.getOrElse(m, IndexedSeq.empty), ordering))
    }
    val valueOrdering = shape.valueOrdering(input)
    // The rows are those of one of up to three groups (skewed keys); the others have none.
    val numGroups = 1 + random.nextInt(3)
    val group = random.nextInt(numGroups)
    val byMap = (0 until numMaps).map { m =>
      Array.tabulate(numGroups * ranges.length) { slot =>
        val r = slot - group * ranges.length
        if (r < 0 || r >= ranges.length || parts(r)(m).isEmpty) null
        else {
          val summarizer = new RangeSummarizer(shape, ordering, valueOrdering, input)
          parts(r)(m).foreach(summarizer.offer)
          summarizer.result
        }
      }
    }
    var from = 0
    val reads = Seq.newBuilder[(Int, Int)]
    while (from < ranges.length) {
      val until = math.min(ranges.length, from + 1 + random.nextInt(2))
      reads += ((from, until))
      from = until
    }
    val tasks = reads.result()
    val summaries = RangeSummary.ofTasks(byMap, tasks, ranges.length, numGroups, shape, ordering,
      valueOrdering)(group)
    val taskRows = tasks.map { case (a, b) =>
      (a until b).flatMap(r => parts(r).flatten).sorted(ordering)
    }.toIndexedSeq
    SplitRows(taskRows, summaries)
  }

  /** Runs of consecutive elements that are `same`. */
  private def groups[T](xs: IndexedSeq[T], same: (T, T) => Boolean): IndexedSeq[IndexedSeq[T]] =
    xs.foldLeft(Vector.empty[Vector[T]]) { (acc, x) =>
      if (acc.nonEmpty && same(acc.last.head, x)) acc.init :+ (acc.last :+ x) else acc :+ Vector(x)
    }

  private def offered(random: Random, rows: IndexedSeq[UnsafeRow],
      ordering: Ordering[InternalRow]): IndexedSeq[UnsafeRow] = {
    val shuffled = random.shuffle(rows)
    random.nextInt(4) match {
      case 0 => shuffled.sorted(ordering)
      case 1 => shuffled.sorted(ordering).reverse
      case 2 => shuffled
      case _ =>
        shuffled.sorted(ordering).grouped(1 + random.nextInt(4)).toIndexedSeq.reverse.flatten
    }
  }
}
