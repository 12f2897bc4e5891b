package fastwindow.exec.acrosstasks

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BoundReference, Expression, SortOrder, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenFallback, LazilyGeneratedOrdering}
import org.apache.spark.sql.execution.{CoalescedPartitionSpec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.{AQEShuffleReadExec, ShuffleQueryStageExec}
import org.apache.spark.sql.execution.exchange.{ReusedExchangeExec, ShuffleExchangeExec}
import org.apache.spark.sql.types.{DataType, DateType, IntegerType, LongType, TimestampNTZType, TimestampType}
import org.apache.spark.unsafe.hash.Murmur3_x86_32
import org.apache.spark.util.AccumulatorV2

/**
 * The ranges of the ORDER BY keys a window without PARTITION BY is split into: found on the driver
 * when the shuffle below the window is prepared ([[RangeSplitExec]]), then read by every map task.
 * Range i holds the keys above bound i-1 and up to bound i (equal keys, one range), as Spark's
 * range partitioning does. A range goes to the shuffle partition of its index through Spark's own
 * hash partitioning (see [[RangeTarget]]), so the shuffle is an ordinary one, coalesced and reused
 * as any other.
 */
final class RangeBounds(val numRanges: Int) extends Serializable {
  override def toString: String = s"$numRanges ranges"

  @volatile private var bounds: Array[InternalRow] = _
  @volatile private var ordering: Ordering[InternalRow] = _
  @volatile private var preimages: Array[Int] = _
  // One integral key without NULL bounds: the bounds as longs, compared without the ordering.
  @volatile private var longBounds: Array[Long] = _
  @volatile private var longKey: RangeBounds.LongKey = _

  private[acrosstasks] def set(upperBounds: Array[InternalRow], keyOrder: Seq[SortOrder]): Unit = {
    preimages = RangeBounds.hashPreimages(numRanges)
    ordering = new LazilyGeneratedOrdering(keyOrder)
    longKey = RangeBounds.LongKey(keyOrder).orNull
    longBounds =
      if (longKey == null || upperBounds.exists(_.isNullAt(0))) null
      else upperBounds.map(longKey.value)
    bounds = upperBounds
  }

  /** The range of a row's ORDER BY keys: the first whose bound is not below them. */
  def rangeOf(keys: InternalRow): Int =
    if (longBounds != null && !keys.isNullAt(0)) {
      val key = longKey.value(keys)
      var low = 0
      var high = longBounds.length
      while (low < high) {
        val mid = (low + high) >>> 1
        val above = if (longKey.ascending) key > longBounds(mid) else key < longBounds(mid)
        if (above) low = mid + 1 else high = mid
      }
      low
    } else {
      var low = 0
      var high = bounds.length
      while (low < high) {
        val mid = (low + high) >>> 1
        if (ordering.gt(keys, bounds(mid))) low = mid + 1 else high = mid
      }
      low
    }

  /** An int that Spark's hash partitioning into `numRanges` partitions sends to `range`. */
  def preimage(range: Int): Int = preimages(range)

  /**
   * The range of the split's `row` (whose keys are `keys(row)`), kept for [[takeRangeOf]]: the
   * shuffle asks for the same row's range at once, in the same thread.
   */
  def rangeOfRow(row: InternalRow, keys: InternalRow => InternalRow): Int = {
    val range = rangeOf(keys(row))
    val last = RangeBounds.lastRow.get()
    last.row = row
    last.bounds = this
    last.range = range
    range
  }

  /**
   * The range of `row`: the one `rangeOfRow` kept if it was for this row (forgotten then, as the
   * row's object may come back holding the next row), else found here.
   */
  def takeRangeOf(row: InternalRow, keys: InternalRow => InternalRow): Int = {
    val last = RangeBounds.lastRow.get()
    if ((last.row eq row) && (last.bounds eq this)) {
      last.row = null
      last.range
    } else rangeOf(keys(row))
  }
}

object RangeBounds {

  /** The last row whose range was found in this thread (see `RangeBounds.rangeOfRow`). */
  private final class LastRow {
    var row: InternalRow = _
    var bounds: RangeBounds = _
    var range: Int = 0
  }

  private val lastRow = ThreadLocal.withInitial[LastRow](() => new LastRow)

  /** One ORDER BY key of an integral type, read as a long, and its direction. */
  final case class LongKey(ascending: Boolean, isInt: Boolean) {
    def value(keys: InternalRow): Long = if (isInt) keys.getInt(0).toLong else keys.getLong(0)
  }

  object LongKey {
    def apply(keyOrder: Seq[SortOrder]): Option[LongKey] = keyOrder match {
      case Seq(only) => only.dataType match {
          case IntegerType | DateType => Some(LongKey(only.isAscending, isInt = true))
          case LongType | TimestampType | TimestampNTZType =>
            Some(LongKey(only.isAscending, isInt = false))
          case _ => None
        }
      case _ => None
    }
  }

  /** Spark's hash partitioning: `pmod(murmur3(value, seed 42), n)`. */
  private def hashPartition(value: Int, n: Int): Int = {
    val h = Murmur3_x86_32.hashInt(value, 42) % n
    if (h < 0) h + n else h
  }

  /** For each partition of `n`, the smallest non-negative int that hashes to it. */
  def hashPreimages(n: Int): Array[Int] = {
    val found = Array.fill(n)(-1)
    var left = n
    var value = 0
    while (left > 0) {
      val p = hashPartition(value, n)
      if (found(p) < 0) {
        found(p) = value
        left -= 1
      }
      value += 1
    }
    found
  }

  /**
   * A uniform sample of at most `size` of `keys` (reservoir sampling, seeded: the same rows give
   * the same sample), and how many keys there were. Only the keys kept are copied.
   */
  def sample(keys: Iterator[InternalRow], size: Int, seed: Long): (Long, Array[InternalRow]) = {
    val kept = new Array[InternalRow](size)
    val random = new java.util.Random(seed)
    var seen = 0L
    while (keys.hasNext) {
      val key = keys.next()
      val slot = if (seen < size) seen else (random.nextDouble() * (seen + 1)).toLong
      if (slot < size) kept(slot.toInt) = key.copy()
      seen += 1
    }
    (seen, if (seen < size) kept.take(seen.toInt) else kept)
  }

  /**
   * At most `n - 1` increasing bounds that split weighted sample keys (each standing for `weight`
   * keys) into `n` ranges of about equal weight.
   */
  def split(samples: Seq[(InternalRow, Double)], n: Int, ordering: Ordering[InternalRow])
      : Array[InternalRow] = {
    val sorted = samples.sortBy(_._1)(ordering)
    val step = sorted.map(_._2).sum / n
    val bounds = Array.newBuilder[InternalRow]
    var last: InternalRow = null
    var found = 0
    var weight = 0.0
    val each = sorted.iterator
    while (each.hasNext && found < n - 1) {
      val (key, w) = each.next()
      weight += w
      // A key equal to the last bound cannot start a new range: equal keys share one.
      if (weight >= step * (found + 1) && (last == null || ordering.gt(key, last))) {
        bounds += key
        last = key
        found += 1
      }
    }
    bounds.result()
  }
}

/**
 * The int a row's ORDER BY keys hash to so that `HashPartitioning(RangeTarget(keys), n)` puts it in
 * the partition of its range: the preimage of the range's index (see [[RangeBounds]]). Shown as
 * `fastwindow_range(keys)` in plans.
 */
case class RangeTarget(children: Seq[Expression], bounds: RangeBounds)
  extends Expression with CodegenFallback {

  override def nullable: Boolean = false
  override def dataType: DataType = IntegerType
  override def prettyName: String = "fastwindow_range"
  override protected def stringArgs: Iterator[Any] = children.iterator

  @transient private lazy val keys = UnsafeProjection.create(children)

  override def eval(input: InternalRow): Any = bounds.preimage(bounds.takeRangeOf(input, keys))

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): RangeTarget =
    copy(children = newChildren)
}

/**
 * The map side of a window without PARTITION BY spread over ranges, just below the shuffle that
 * splits its rows (its rows pass through unchanged):
 *
 *  1. On the driver, when the shuffle is prepared: the range bounds, from a sample of the keys
 *     (taken as Spark's range partitioning for a global ORDER BY takes it): of `sampled`, when
 *     the planner gave one, the child's plan projected to the ORDER BY keys (a scan that reads
 *     only the key columns), else of the child's rows.
 *  2. In each map task: the summary of every range its rows fall into ([[RangeSummarizer]]: row
 *     count, seeded aggregates' state, first and last rows), sent to the driver with the task's
 *     result (an accumulator, by map index: a task run again replaces its summaries). The
 *     operators above combine them per task ([[RangedEvaluation]]) without reading the shuffle
 *     again. When the summaries of every map task and range would hold more than
 *     [[RangeSplitExec.MaxMapSideEntries]], no map task summarises, and the operators read the
 *     shuffle's output once more to summarise it per range.
 */
case class RangeSplitExec(
    orderSpec: Seq[SortOrder],
    shape: SummaryShape,
    bounds: RangeBounds,
    child: SparkPlan,
    sampled: Option[SparkPlan])
  extends SparkPlan {

  override def nodeName: String = "FastWindowRangeSplit"
  override def children: Seq[SparkPlan] = child +: sampled.toSeq
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning = child.outputPartitioning

  override protected def stringArgs: Iterator[Any] =
    Iterator(orderSpec, s"${bounds.numRanges} ranges")

  /** The map tasks' summaries and how many map tasks there are; None when they do not summarise. */
  @transient private[acrosstasks] var mapSummaries: Option[(MapSummaries, Int)] = None

  override protected def doExecute(): RDD[InternalRow] = split

  @transient private lazy val split: RDD[InternalRow] = {
    val input = child.execute()
    setBounds(input)
    val numMaps = input.getNumPartitions
    val entries = numMaps.toLong * bounds.numRanges * (1 + shape.firstRows + shape.lastRows)
    if (entries > RangeSplitExec.MaxMapSideEntries) input
    else {
      val summaries = new MapSummaries
      sparkContext.register(summaries)
      mapSummaries = Some((summaries, numMaps))
      val (keys, shape, bounds, attributes) =
        (orderSpec.map(_.child), this.shape, this.bounds, output)
      input.mapPartitionsWithIndex { (mapIndex, rows) =>
        val keysOf = UnsafeProjection.create(keys, attributes)
        val ordering = new LazilyGeneratedOrdering(shape.order, attributes)
        val ranges = new Array[RangeSummarizer](bounds.numRanges)
        var published = false
        new Iterator[InternalRow] {
          override def hasNext: Boolean = {
            val more = rows.hasNext
            if (!more && !published) {
              summaries.add(mapIndex -> ranges.map(r => if (r == null) null else r.result))
              published = true
            }
            more
          }
          override def next(): InternalRow = {
            val row = rows.next()
            val range = bounds.rangeOfRow(row, keysOf)
            if (ranges(range) == null) ranges(range) = new RangeSummarizer(shape, ordering)
            ranges(range).offer(row)
            row
          }
        }
      }
    }
  }

  /**
   * The bounds of the ranges, from a sample of the keys of each input partition (20 keys per
   * range by default, Spark's `spark.sql.execution.rangeExchange.sampleSizePerPartition`, three
   * times over as Spark's range partitioning samples), each weighed by its partition's size.
   */
  private def setBounds(input: RDD[InternalRow]): Unit = {
    val keyOrder = orderSpec.zipWithIndex.map { case (o, i) =>
      o.copy(child = BoundReference(i, o.dataType, o.nullable))
    }
    val (source, project) = sampled match {
      case Some(plan) => (plan.execute(), None)
      case None => (input, Some((orderSpec.map(_.child), output)))
    }
    val total =
      math.min(conf.rangeExchangeSampleSizePerPartition.toLong * bounds.numRanges, 1000000L)
    val size = math.ceil(3.0 * total / math.max(source.getNumPartitions, 1)).toInt
    val sketches = source.mapPartitionsWithIndex { (index, rows) =>
      val keys = project.fold(rows) { case (keys, attributes) =>
        rows.map(UnsafeProjection.create(keys, attributes))
      }
      Iterator(RangeBounds.sample(keys, size, seed = index))
    }.collect()
    val weighed = sketches.toSeq.flatMap { case (count, keys) =>
      keys.map(k => (k, count.toDouble / keys.length))
    }
    bounds.set(RangeBounds.split(weighed, bounds.numRanges, new LazilyGeneratedOrdering(keyOrder)),
      keyOrder)
  }

  /** Whether the map tasks' summaries hold what `wanted` asks for. */
  def serves(wanted: SummaryShape): Boolean =
    wanted.fold.forall(f => shape.fold.exists(g => same(g.aggregates, f.aggregates))) &&
      wanted.firstRows <= shape.firstRows && wanted.lastRows <= shape.lastRows &&
      (wanted.firstRows + wanted.lastRows == 0 || same(wanted.order, shape.order))

  private def same(a: Seq[Expression], b: Seq[Expression]): Boolean =
    a.length == b.length && a.zip(b).forall { case (x, y) => x.semanticEquals(y) }

  override protected def withNewChildrenInternal(
      newChildren: IndexedSeq[SparkPlan]): RangeSplitExec =
    copy(child = newChildren.head, sampled = newChildren.drop(1).headOption)
}

object RangeSplitExec {

  /**
   * The most entries the map tasks' summaries may hold on the driver, an entry being a range's
   * count and state or one halo row (map tasks x ranges x (1 + rows its neighbours read)); past
   * it the ranges are summarised from the shuffle's output instead.
   */
  val MaxMapSideEntries: Long = 400000L

  /**
   * The shuffle and split below `plan` (the operator's input, below Spark's sort) and, when
   * adaptive execution coalesced the shuffle's partitions, the ranges each task reads (from, until);
   * None when they are not there, or read in pieces other than whole ranges.
   */
  def below(
      plan: SparkPlan): Option[(ShuffleExchangeExec, RangeSplitExec, Option[Seq[(Int, Int)]])] =
    plan match {
      case read: AQEShuffleReadExec =>
        val ranges = read.partitionSpecs.collect {
          case c: CoalescedPartitionSpec => (c.startReducerIndex, c.endReducerIndex)
        }
        if (ranges.length != read.partitionSpecs.length) None
        else below(read.child).map { case (exchange, split, _) => (exchange, split, Some(ranges)) }
      case stage: ShuffleQueryStageExec => below(stage.plan)
      case reused: ReusedExchangeExec => below(reused.child)
      case exchange: ShuffleExchangeExec => exchange.child match {
          case split: RangeSplitExec => Some((exchange, split, None))
          case _ => None
        }
      case _ => None
    }
}

/**
 * Each map task's summaries of the ranges (null for a range without its rows), by map index.
 * Adding a map index again replaces its summaries: a task that runs again sends the same ones.
 */
final class MapSummaries
  extends AccumulatorV2[(Int, Array[RangeSummary]), java.util.Map[Integer, Array[RangeSummary]]] {
  private val byMap = new java.util.concurrent.ConcurrentHashMap[Integer, Array[RangeSummary]]()

  override def isZero: Boolean = byMap.isEmpty
  override def copy(): MapSummaries = {
    val copied = new MapSummaries
    copied.byMap.putAll(byMap)
    copied
  }
  override def reset(): Unit = byMap.clear()
  override def add(v: (Int, Array[RangeSummary])): Unit = byMap.put(v._1, v._2)
  override def merge(other: AccumulatorV2[(Int, Array[RangeSummary]),
        java.util.Map[Integer, Array[RangeSummary]]]): Unit = byMap.putAll(other.value)
  override def value: java.util.Map[Integer, Array[RangeSummary]] = byMap
}
