package fastwindow.exec.acrosstasks

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Attribute, BoundReference, Expression, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.execution.{CoalescedPartitionSpec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{AQEShuffleReadExec, ShuffleQueryStageExec}
import org.apache.spark.sql.execution.exchange.{ReusedExchangeExec, ShuffleExchangeExec}

import fastwindow.config.FastWindowLimits
import fastwindow.exec.shared.IntegralOrderKey

/**
 * The map side of a window spread over ranges (without PARTITION BY, or a skewed key's rows),
 * just below the shuffle that splits its rows (its rows pass through unchanged). `orderSpec` is
 * the order of the keys that split them: with PARTITION BY, its keys first (see [[RangeBounds]]).
 *
 *  1. On the driver, when the shuffle is prepared: the range bounds, from a sample of the keys
 *     (taken as Spark's range partitioning for a global ORDER BY takes it): of `sampled`, when
 *     the planner gave one, the child's plan projected to the ORDER BY keys (a scan that reads
 *     only the key columns), else of the child's rows. With `hashedRows` (a window without
 *     ORDER BY), the one key is a 32-bit hash of the row, spread evenly: the bounds split the
 *     ints into equal ranges, with no sample.
 *  2. In each map task: the summary of every range its rows fall into ([[RangeSummarizer]]: row
 *     count, seeded aggregates' state, first and last rows), sent to the driver with the task's
 *     result (an accumulator, by map index: a task run again replaces its summaries). The
 *     operators above combine them per task ([[RangedEvaluation]]) without reading the shuffle
 *     again. When the summaries of every map task and range would hold more entries than
 *     `spark.fastwindow.acrossTasks.maxSummaryEntries` (a count, a state, a row), no map task
 *     summarises; when a map task's summaries hold more bytes than its share of
 *     `spark.fastwindow.acrossTasks.maxSummaryBytes`, it sends none. Either way the operators
 *     read the shuffle's output once more to summarise it per range.
 */
case class RangeSplitExec(
    orderSpec: Seq[SortOrder],
    shape: SummaryShape,
    bounds: RangeBounds,
    child: SparkPlan,
    sampled: Option[SparkPlan],
    hashedRows: Boolean = false)
  extends SparkPlan {

  override def nodeName: String = "FastWindowRangeSplit"
  override def children: Seq[SparkPlan] = child +: sampled.toSeq
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning = child.outputPartitioning

  override protected def stringArgs: Iterator[Any] =
    Iterator(orderSpec,
      if (hashedRows) s"${bounds.numRanges} ranges of hashed rows"
      else bounds.toString)

  /** The map tasks' summaries and how many map tasks there are; None when they do not summarise. */
  @transient private[acrosstasks] var mapSummaries: Option[(MapSummaries, Int)] = None

  override protected def doExecute(): RDD[InternalRow] = split

  @transient private lazy val split: RDD[InternalRow] = {
    val input = child.execute()
    setBounds(input)
    val numMaps = input.getNumPartitions
    val parts = numMaps.toLong * bounds.numSlots
    val maxEntries = FastWindowLimits.ACROSS_TASKS_MAX_SUMMARY_ENTRIES.get(conf)
    if (parts * (1 + shape.rowsNeeded) > maxEntries) input
    else {
      // RANGE frames' rows: as many as the cap leaves room for.
      // (No parts: an empty input, or skewed keys' split without a skewed key.)
      val room =
        (maxEntries / math.max(parts, 1) - 1 - this.shape.rowsNeeded) / 2
      val shape = this.shape.copy(reachRows = math.min(this.shape.reachRows, room).toInt)
      val bytesPerMap =
        FastWindowLimits.ACROSS_TASKS_MAX_SUMMARY_BYTES.get(conf) / math.max(numMaps, 1)
      val summaries = new MapSummaries
      sparkContext.register(summaries)
      mapSummaries = Some((summaries, numMaps))
      val (keys, bounds, attributes) = (orderSpec.map(_.child), this.bounds, output)
      input.mapPartitionsWithIndex { (mapIndex, rows) =>
        val keysOf = UnsafeProjection.create(keys, attributes)
        val column = IntegralOrderKey(orderSpec, attributes).orNull
        val ordering = new LazilyGeneratedOrdering(shape.order, attributes)
        val valueOrdering = shape.valueOrdering(attributes)
        val ranges = new Array[RangeSummarizer](bounds.numSlots)
        var published = false
        new Iterator[InternalRow] {
          override def hasNext: Boolean = {
            val more = rows.hasNext
            if (!more && !published) {
              val results = ranges.map(r => if (r == null) null else r.result)
              if (results.iterator.filter(_ != null).map(_.heldBytes).sum <= bytesPerMap) {
                summaries.add(mapIndex -> results)
              }
              published = true
            }
            more
          }
          override def next(): InternalRow = {
            val row = rows.next()
            val range = bounds.rangeOfRow(row, keysOf, column)
            if (range >= 0) { // not a key hashed whole to its partition
              if (ranges(range) == null)
                ranges(range) = new RangeSummarizer(shape, ordering, valueOrdering, attributes)
              ranges(range).offer(row)
            }
            row
          }
        }
      }
    }
  }

  /**
   * The bounds of the ranges, from a sample of the keys of each input partition (20 keys per
   * range by default, Spark's `spark.sql.execution.rangeExchange.sampleSizePerPartition`, three
   * times over as Spark's range partitioning samples), each weighed by its partition's size;
   * with PARTITION BY, the skewed keys too, and the bounds of each one's rows.
   */
  private def setBounds(input: RDD[InternalRow]): Unit = {
    val keyOrder = orderSpec.zipWithIndex.map { case (o, i) =>
      o.copy(child = BoundReference(i, o.dataType, o.nullable))
    }
    if (hashedRows) return bounds.setEvenInts(keyOrder)
    val total =
      math.min(conf.rangeExchangeSampleSizePerPartition.toLong * bounds.numRanges, 1000000L)
    val sizeFor = (partitions: Int) => math.ceil(3.0 * total / math.max(partitions, 1)).toInt
    val sketches = sampled match {
      case Some(plan) => KeySample.ofPlan(plan, sizeFor)
      case None =>
        val (keys, attributes) = (orderSpec.map(_.child), output)
        KeySample.ofRows(input, sizeFor, () => UnsafeProjection.create(keys, attributes))
    }
    val weighed = sketches.toSeq.flatMap { case (count, keys) =>
      keys.map(k => (k, count.toDouble / keys.length))
    }
    val ordering = new LazilyGeneratedOrdering(keyOrder)
    if (bounds.partitionKeys == 0) {
      bounds.set(RangeBounds.split(weighed, bounds.numRanges, ordering), keyOrder)
    } else {
      // As many keys as the map tasks' summaries can hold (at least one).
      val perKey = input.getNumPartitions.toLong * bounds.numRanges *
        (1 + shape.rowsNeeded)
      val maxKeys = math.max(
        1L,
        math.min(FastWindowLimits.ACROSS_TASKS_MAX_SKEWED_KEYS.get(conf).toLong,
          FastWindowLimits.ACROSS_TASKS_MAX_SUMMARY_ENTRIES.get(conf) / math.max(perKey, 1L))
      )
        .toInt
      val skewed = RangeSplitExec.skewedKeys(weighed, bounds.partitionKeys, keyOrder,
        bounds.numRanges, maxKeys)
      bounds.setSkewed(
        skewed.map { case (key, rows) =>
          key -> RangeBounds.split(rows, bounds.numRanges, ordering)
        },
        keyOrder)
    }
  }

  /** Whether the map tasks' summaries hold what `wanted` asks for. */
  def serves(wanted: SummaryShape): Boolean =
    wanted.fold.forall(f => shape.fold.exists(g => same(g.aggregates, f.aggregates))) &&
      wanted.firstRows <= shape.firstRows && wanted.lastRows <= shape.lastRows &&
      wanted.nonNull.forall(shape.nonNull.contains) &&
      (wanted.reach.isEmpty || shape.reach.isDefined) &&
      (wanted.rowsKept == 0 && wanted.fold.forall(_.decidedByRows.isEmpty) ||
        same(wanted.order, shape.order)) &&
      (wanted.valueOrder.isEmpty || same(wanted.valueOrder, shape.valueOrder))

  private def same(a: Seq[Expression], b: Seq[Expression]): Boolean =
    a.length == b.length && a.zip(b).forall { case (x, y) => x.semanticEquals(y) }

  override protected def withNewChildrenInternal(
      newChildren: IndexedSeq[SparkPlan]): RangeSplitExec =
    copy(child = newChildren.head, sampled = newChildren.drop(1).headOption)
}

object RangeSplitExec {

  /**
   * The skewed keys of a window with PARTITION BY and their sampled rows, from the weighed sample
   * of its keys (PARTITION BY keys then ORDER BY keys): each key whose rows weigh at least a
   * quarter of one task's fair share (all rows / `numRanges`), which hashed whole to one partition
   * would make that task a quarter longer than the others on average or more; at most `maxKeys`
   * of the largest. None with fewer than two ranges.
   */
  def skewedKeys(weighed: Seq[(InternalRow, Double)], partitionKeys: Int,
      keyOrder: Seq[SortOrder], numRanges: Int,
      maxKeys: Int): Seq[(UnsafeRow, Seq[(InternalRow, Double)])] =
    if (numRanges < 2) Nil
    else {
      val keyOf = RangeBounds.prefix(partitionKeys, keyOrder.map(_.dataType))
      val quarterShare = weighed.map(_._2).sum / numRanges / 4
      weighed.groupBy(w => keyOf(w._1).copy()).toSeq
        .map { case (key, rows) => (key, rows, rows.map(_._2).sum) }
        .filter(_._3 >= quarterShare)
        .sortBy(-_._3)
        .take(maxKeys)
        .map { case (key, rows, _) => (key, rows) }
    }

  /**
   * The shuffle and split below `plan` (the operator's input, below Spark's sort) and, when
   * adaptive execution coalesced the shuffle's partitions, the ranges each task reads (from, until);
   * None when they are not there, or (`wholeRangesOnly`) read in pieces other than whole ranges.
   */
  def below(plan: SparkPlan, wholeRangesOnly: Boolean = true)
      : Option[(ShuffleExchangeExec, RangeSplitExec, Option[Seq[(Int, Int)]])] =
    plan match {
      case read: AQEShuffleReadExec =>
        val ranges = read.partitionSpecs.collect {
          case c: CoalescedPartitionSpec => (c.startReducerIndex, c.endReducerIndex)
        }
        if (wholeRangesOnly && ranges.length != read.partitionSpecs.length) None
        else below(read.child, wholeRangesOnly).map { case (exchange, split, _) =>
          (exchange, split, Some(ranges))
        }
      case stage: ShuffleQueryStageExec => below(stage.plan, wholeRangesOnly)
      case reused: ReusedExchangeExec => below(reused.child, wholeRangesOnly)
      case exchange: ShuffleExchangeExec => exchange.child match {
          case split: RangeSplitExec => Some((exchange, split, None))
          case _ => None
        }
      case _ => None
    }
}
