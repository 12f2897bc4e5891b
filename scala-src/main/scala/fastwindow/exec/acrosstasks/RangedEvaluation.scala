package fastwindow.exec.acrosstasks

import org.apache.spark.{SparkContext, SparkException}
import org.apache.spark.internal.Logging
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Ascending, Expression, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.execution.{SQLExecution, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.fastwindow.MapStage

import fastwindow.functions.{AggregateSpec, NthValueSpec, RankingSpec, SlidingGuard}
import fastwindow.model.{FrameShape, RankingKind, Spread, WindowPlan}

/**
 * Runs a window without PARTITION BY over ranges of its ORDER BY keys, one task each: the
 * planner puts the shuffle that splits the rows into ranges below the operator
 * ([[RangeSplitExec]]), and Spark sorts each range.
 *
 *  1. **Summaries**: each task's summary, from the map tasks' summaries of the ranges it reads
 *     (when there are two or more tasks); past the map side's cap, from one job that reads the
 *     shuffle's output again (not recomputed, not sorted) and summarises each task's rows. With
 *     dense_rank, the summaries also count each range's distinct ORDER BY values where the rows
 *     reach the map tasks in runs in order ([[ValueRun]]); else one more job reads the shuffle's
 *     output to count them ([[DistinctOrderValues]]).
 *  2. **Combine** on the driver ([[RangeSeeds]]): each range's rows before it, seeded states
 *     and halo rows.
 *  3. **Evaluate**: each range's sorted rows with its seed, which reaches its task as the one
 *     element of the task's partition of a small RDD zipped with the input. When the seeds
 *     cannot be made (RANGE frames bounded by value offsets that reach further than the
 *     summaries' rows, see [[ReachedRows]]; shrinking frames whose states after a range cannot
 *     be merged exactly, see [[RangeSeeds]]), the first task reads every range in order and
 *     evaluates the whole window, as Spark's one task does ([[InFirstTask]]).
 */
object RangedEvaluation extends Logging {

  /**
   * The operator's metrics of its ranges: how many, the driver's time, second reads, with
   * PARTITION BY the keys split into ranges, the tasks that read their ranges in order without a
   * sort ([[BlocksInOrder]]), the halo rows handed to ranges and the bytes of the rows the
   * summaries the driver read hold.
   */
  final case class Metrics(numRanges: SQLMetric, summaryTime: SQLMetric, summaryReads: SQLMetric,
      skewedKeys: SQLMetric, rangesInOrder: SQLMetric, haloRows: SQLMetric, summarySize: SQLMetric)

  /** The operator's own evaluation of some rows, seeded (or not: null). */
  type Evaluate = (Iterator[InternalRow], RangeSeed) => Iterator[InternalRow]

  /** A range's sorted rows with its peers in the order its neighbours see them. */
  type OrderPeers = Iterator[InternalRow] => Iterator[InternalRow]

  /**
   * A range's output: seeded functions start from the seed; halo functions evaluate the rows
   * before the range, the range (its peers put in order by `orderPeers`) and the rows after it,
   * and only the range's rows are returned.
   */
  def evaluateRange(ranges: Spread.Ranges, rows: Iterator[InternalRow], seed: RangeSeed,
      evaluate: Evaluate, orderPeers: OrderPeers): Iterator[InternalRow] = ranges match {
    case Spread.Seeded => evaluate(rows, seed)
    case _: Spread.Halos =>
      val out = evaluate(seed.before.iterator ++ orderPeers(rows) ++ seed.after.iterator, null)
        .drop(seed.before.length)
      if (seed.after.isEmpty) out
      else new Iterator[InternalRow] {
        private var left = seed.rows
        override def hasNext: Boolean = left > 0 && out.hasNext
        override def next(): InternalRow = { left -= 1; out.next() }
      }
  }

  /**
   * `input`: the operator's input (the ranges, sorted by `order`); `shuffled`: the range shuffle
   * below it, as the operator reads it (through adaptive execution's coalescing, if any). With
   * `partitionSpec`, only the skewed keys' rows are in ranges: each task evaluates the runs of
   * its rows that hold a skewed key (see [[KeySegments]]) seeded by that key's summaries, and
   * the rest of its rows as they are. `sortsShuffle`: `input` is Spark's sort of `shuffled` and
   * nothing else, so a task whose ranges reached the map tasks in order may read them in order
   * instead ([[BlocksInOrder]]). `orderPeers`: with halo rows, puts each range's peers in the
   * order of the rows handed to its neighbours ([[PeersInOrder]]).
   */
  def apply(
      plan: WindowPlan,
      partitionSpec: Seq[Expression],
      order: Seq[SortOrder],
      ranges: Spread.Ranges,
      shuffled: SparkPlan,
      input: RDD[InternalRow],
      sortsShuffle: Boolean,
      evaluate: Evaluate,
      orderPeers: OrderPeers,
      metrics: Metrics): RDD[InternalRow] = {
    val n = input.getNumPartitions
    if (n == 0) return input
    if (n > 1 && RangeSplitExec.below(shuffled, wholeRangesOnly = false).isEmpty) {
      return inOneTask(shuffled, order, input, evaluate, metrics)
    }
    val start = System.nanoTime()
    val seeds: Option[Array[TaskSeeds]] =
      if (n == 1) Some(Array(TaskSeeds(Array.empty, Array.empty)))
      else seedsOf(plan, order, ranges, shuffled, input, metrics, partitionSpec)
    metrics.summaryTime += (System.nanoTime() - start) / 1000000
    metrics.numRanges += seeds.fold(1)(_ => n)
    metrics.skewedKeys += seeds.fold(0)(_.head.keys.length)
    metrics.haloRows += seeds.fold(0L)(_.iterator.flatMap(_.seeds)
        .map(seed => seed.before.length + seed.after.length).sum)
    val read =
      if (seeds.isEmpty || partitionSpec.nonEmpty || !sortsShuffle || n == 1) {
        BlocksInOrder.sortedOnly(input)
      } else BlocksInOrder.input(shuffled, order, input)
    metrics.rangesInOrder += read.inOrder
    postDriverMetrics(
      input.sparkContext,
      Seq(metrics.numRanges, metrics.summaryTime, metrics.summaryReads, metrics.skewedKeys,
        metrics.rangesInOrder, metrics.haloRows, metrics.summarySize)
    )
    seeds match {
      case Some(s) =>
        // A range read in order without ties has no peers to order.
        val tasks = s.zip(read.withoutTies).map { case (t, none) => t.copy(withoutTies = none) }
        seeded(partitionSpec, ranges, shuffled, read.rows, evaluate, orderPeers, tasks)
      case None if partitionSpec.isEmpty =>
        logWarning("fastwindow: a window's RANGE frames reach more rows of the ranges around " +
          "a range than spark.fastwindow.acrossTasks.maxHaloRows, a key plus a frame's offset " +
          "wraps around, or a shrinking frame's sum could overflow in some order: its ranges " +
          "are evaluated in one task, in order")
        new InFirstTask(input).mapPartitions(rows => evaluate(rows, null))
      case None => throw SparkException.internalError(
          "fastwindow: a skewed key's ranges cannot be evaluated in one task")
    }
  }

  /**
   * The window's tasks' rows merged into its first task and evaluated there, as Spark's one task
   * would: what `shuffled` reads is no longer the range shuffle planned below the window (another
   * rule or plugin replaced it), so its tasks' rows, each sorted, are not ranges that seeds fit.
   */
  private def inOneTask(shuffled: SparkPlan, order: Seq[SortOrder], input: RDD[InternalRow],
      evaluate: Evaluate, metrics: Metrics): RDD[InternalRow] = {
    logWarning(s"fastwindow: a window spread over ranges no longer reads the range shuffle " +
      s"planned below it (it reads ${shuffled.nodeName}: another rule or plugin replaced it); " +
      "its tasks' rows are merged and evaluated in one task")
    metrics.numRanges += 1
    postDriverMetrics(input.sparkContext, Seq(metrics.numRanges))
    val ordering = new LazilyGeneratedOrdering(order, shuffled.output)
    new InFirstTask(input, Some(ordering)).mapPartitions(rows => evaluate(rows, null))
  }

  /** Each task evaluates its own range from its seeds. */
  private def seeded(partitionSpec: Seq[Expression], ranges: Spread.Ranges, shuffled: SparkPlan,
      input: RDD[InternalRow], evaluate: Evaluate, orderPeers: OrderPeers,
      seeds: Array[TaskSeeds]): RDD[InternalRow] = {
    val n = input.getNumPartitions
    val seedRdd = input.sparkContext.parallelize(seeds.toSeq, n)
    val attributes = shuffled.output
    input.zipPartitions(seedRdd, preservesPartitioning = true) { (rows, taskSeeds) =>
      val seed = taskSeeds.next()
      if (partitionSpec.isEmpty) {
        evaluateRange(ranges, rows, seed.seeds.headOption.getOrElse(Whole), evaluate,
          if (seed.withoutTies) identity else orderPeers)
      } else if (seed.keys.isEmpty) evaluate(rows, null)
      else {
        val byKey = new java.util.HashMap[UnsafeRow, RangeSeed]()
        seed.keys.indices.foreach(g => byKey.put(seed.keys(g), seed.seeds(g)))
        new KeySegments(rows, UnsafeProjection.create(partitionSpec, attributes), byKey)
          .flatMap { case (keySeed, segment) =>
            if (keySeed == null) evaluate(segment, null)
            else evaluateRange(ranges, segment, keySeed, evaluate, orderPeers)
          }
      }
    }
  }

  /** The seed of a range that holds the whole window. */
  private val Whole = RangeSeed(0L, 0L, 0L, 0L, null, Array.empty, Array.empty)

  /**
   * What one task starts from: without PARTITION BY, its range's seed (`keys` empty); with it,
   * the seed of each skewed key (`seeds(g)` for `keys(g)`). `withoutTies`: its rows have no
   * two equal first ORDER BY keys ([[BlocksInOrder]]).
   */
  final case class TaskSeeds(keys: Array[UnsafeRow], seeds: Array[RangeSeed],
      withoutTies: Boolean = false)

  private def seedsOf(plan: WindowPlan, order: Seq[SortOrder], ranges: Spread.Ranges,
      source: SparkPlan, input: RDD[InternalRow], metrics: Metrics,
      partitionSpec: Seq[Expression]): Option[Array[TaskSeeds]] = {
    val seeded = seededAggregates(plan, ranges)
    val fold =
      if (seeded.isEmpty) None else Some(new StateFold(seeded.flatMap(_.folded), source.output))
    val halos = ranges match {
      case h: Spread.Halos => Some(h)
      case Spread.Seeded => None
    }
    val split = RangeSplitExec.below(source, wholeRangesOnly = false).map(_._2)
    // The ranges' order (beside halo functions, with RangeOrder's tie-break, which the seeded
    // operator's own ORDER BY leaves out): the summaries pick rows among ties by it.
    val rangeOrder = split.fold(order)(_.shape.order)
    val counted = countsPeerGroups(plan, ranges)
    // dense_rank counts the distinct keys of the window, not of the tie-broken `order`.
    val peerKeys = partitionSpec.map(SortOrder(_, Ascending)) ++ plan.orderSpec
    val shape =
      SummaryShape.of(fold, rangeOrder, halos, if (counted) peerKeys else Nil, source.output)
    val keys = if (partitionSpec.isEmpty) Array.empty[UnsafeRow]
    else split.map(_.bounds.skewedKeys.toArray).getOrElse(throw SparkException.internalError(
        "fastwindow: the range split below a window with skewed keys is not found"))
    if (partitionSpec.nonEmpty && keys.isEmpty) {
      return Some(Array.fill(input.getNumPartitions)(TaskSeeds(keys, Array.empty)))
    }
    val numGroups = math.max(keys.length, 1)
    // With skewed keys, how a second read finds a row's group: the split's bounds and keys.
    val group = split.filter(_ => keys.nonEmpty).map(s => (s.bounds, s.orderSpec.map(_.child)))
    def readAgain(): Array[Array[RangeSummary]] = {
      metrics.summaryReads += 1
      val output = source.output
      source.execute()
        .mapPartitions(rows =>
          Iterator(RangeSummarizer.summarize(shape, output, rows, numGroups,
              group)))
        .collect()
        .transpose
    }
    def foldInOrder(g: Int)(i: Int, state: InternalRow): InternalRow = {
      val f = fold.get
      val key = keys.lift(g)
      val attributes = source.output
      input.sparkContext.runJob(
        input,
        (rows: Iterator[InternalRow]) => {
          val keyOf = UnsafeProjection.create(partitionSpec, attributes)
          f.fold(state, key.fold(rows)(k => rows.filter(r => keyOf(r) == k)))
        },
        Seq(i)
      ).head
    }
    def seedsFrom(summaries: Array[Array[RangeSummary]]): Option[Array[TaskSeeds]] = {
      metrics.summarySize += summaries.iterator.flatten.map(_.heldBytes).sum
      // Each task's distinct values: from the summaries when they could count them, else read.
      val distinct = if (!counted) None
      else {
        countedDistinct(summaries).orElse {
          metrics.summaryReads += 1
          Some(DistinctOrderValues.perTask(source, peerKeys, numGroups, group).transpose)
        }
      }
      val byGroup = summaries.zipWithIndex.map { case (groupSummaries, g) =>
        RangeSeeds.combine(
          groupSummaries,
          distinct.map(_(g)),
          fold,
          seeded,
          plan.functions.length,
          foldInOrder(g),
          halos.fold(0)(_.before),
          halos.fold(0)(_.after),
          shape.nonNull,
          new LazilyGeneratedOrdering(rangeOrder, source.output),
          shape.reach
        )
      }
      if (byGroup.exists(_.isEmpty)) None
      else Some(Array.tabulate(input.getNumPartitions)(t => TaskSeeds(keys, byGroup.map(_.get(t)))))
    }
    val fromMaps = fromMapTasks(source, shape, input.getNumPartitions)
    val summaries = fromMaps.getOrElse(readAgain())
    seedsFrom(summaries).orElse {
      if (readsAgainForReach(shape, fromMaps.isDefined, summaries)) seedsFrom(readAgain())
      else None
    }
  }

  /**
   * Each group's distinct ORDER BY values per task (dense_rank), from the summaries when every
   * one of them could count its own (its rows reached the map tasks in runs in order, see
   * [[ValueRun]]); None when one could not, and the shuffle's output is read again to count them.
   */
  def countedDistinct(summaries: Array[Array[RangeSummary]]): Option[Array[Array[Long]]] =
    if (summaries.forall(_.forall(_.values.ordered))) Some(summaries.map(_.map(_.values.count)))
    else None

  /**
   * Whether ranges that got no seeds from their summaries are summarised again from a second
   * read of the shuffle's output: only when RANGE frames reach rows by value and the summaries
   * came from the map tasks (`fromMaps`), which keep fewer of those rows than the cap when there
   * are many of them (see [[RangeSplitExec]]; each task's own summary keeps up to the cap), and
   * no key plus an offset wraps around (no summary gives seeds then).
   */
  def readsAgainForReach(shape: SummaryShape, fromMaps: Boolean,
      summaries: Array[Array[RangeSummary]]): Boolean =
    shape.reach.isDefined && fromMaps && !summaries.exists(_.exists(_.wraps))

  /**
   * The summary of each of the operator's `numTasks` tasks from the map tasks' summaries of the
   * ranges it reads (see [[RangeSplitExec]]), one array per group of slots (a skewed key; one
   * without PARTITION BY), when the split below `source` made them for what `shape` asks (after
   * its map stage has run; it runs here when adaptive execution has not run it yet); None
   * otherwise.
   */
  private def fromMapTasks(source: SparkPlan, shape: SummaryShape,
      numTasks: Int): Option[Array[Array[RangeSummary]]] =
    RangeSplitExec.below(source).flatMap { case (exchange, split, reads) =>
      val n = split.bounds.numRanges
      val ranges = reads.getOrElse((0 until n).map(r => (r, r + 1)))
      if (!split.serves(shape) || ranges.length != numTasks) None
      else {
        val dependency = exchange.shuffleDependency
        MapStage.materialize(dependency.rdd.sparkContext, dependency)
        split.mapSummaries.collect {
          case (summaries, numMaps) if summaries.value.size == numMaps =>
            val byMap = (0 until numMaps).map(m => summaries.value.get(m))
            RangeSummary.ofTasks(byMap, ranges, n, split.bounds.numSlots / n, shape,
              new LazilyGeneratedOrdering(shape.order, source.output),
              shape.valueOrdering(source.output))
        }
      }
    }

  /**
   * A seeded function of a window: its slot, the aggregates whose buffers its kernel holds side
   * by side (its own; over a shrinking frame what the two stacks combine,
   * `SlidingGuard.combined`), whose rows its seed is the state of, and with a guard the sum of
   * |x| below which none of its frames can come near an overflow: the last of `aggregates`
   * over a shrinking frame; over a whole frame `watched`, which only the combine reads.
   */
  final case class SeededAggregate(slot: Int, aggregates: Seq[DeclarativeAggregate],
      rows: SeedRows, safeMagnitude: Option[Double] = None,
      watched: Option[DeclarativeAggregate] = None) {

    /** The aggregates the summaries fold for it: its kernel's, then the guard's sum of |x|. */
    def folded: Seq[DeclarativeAggregate] = aggregates ++ watched
  }

  /**
   * The seeded functions of `plan` (aggregates and nth_value over running or whole frames,
   * aggregates over frames shrinking from the current row), when `ranges` seeds them. A guarded
   * aggregate over a whole frame (an integral sum under ANSI) also folds its guard's sum of |x|:
   * its seed is the state of every row, which no task folds in the window's order, so the
   * combine checks that no order of the rows can overflow before merging ranges' states.
   */
  def seededAggregates(plan: WindowPlan, ranges: Spread.Ranges): Seq[SeededAggregate] =
    ranges match {
      case Spread.Seeded => plan.functions.zipWithIndex.collect {
          case (a: AggregateSpec, k) if a.frame.shrinksFromCurrentRow =>
            seededAggregate(k, a.function, SeedRows.After)
          case (a: AggregateSpec, k) if seedRows.isDefinedAt(a.frame) =>
            seededAggregate(k, a.function, seedRows(a.frame))
          case (n: NthValueSpec, k) if seedRows.isDefinedAt(n.frame) =>
            SeededAggregate(k, Seq(n.function), seedRows(n.frame))
        }
      case _: Spread.Halos => Nil
    }

  /** Function `slot`, aggregate `agg` seeded with the state of `rows` (see above). */
  def seededAggregate(slot: Int, agg: DeclarativeAggregate, rows: SeedRows): SeededAggregate = {
    val (combined, guard) = SlidingGuard.combined(agg)
    rows match {
      case SeedRows.After =>
        SeededAggregate(slot, combined, rows, guard.map(_.safeMagnitude))
      case SeedRows.All =>
        SeededAggregate(slot, Seq(agg), rows, guard.map(_.safeMagnitude),
          guard.map(_ => combined.last))
      case SeedRows.Before => SeededAggregate(slot, Seq(agg), rows)
    }
  }

  private val seedRows: PartialFunction[FrameShape, SeedRows] = {
    case FrameShape.RunningRows | FrameShape.RunningRange => SeedRows.Before
    case FrameShape.WholePartition => SeedRows.All
  }

  /** Whether a range of `plan` starts from the peer groups before it (dense_rank). */
  def countsPeerGroups(plan: WindowPlan, ranges: Spread.Ranges): Boolean =
    ranges == Spread.Seeded && plan.functions.exists {
      case r: RankingSpec => r.kind == RankingKind.DenseRank
      case _ => false
    }

  private def postDriverMetrics(sc: SparkContext, metrics: Seq[SQLMetric]): Unit =
    Option(sc.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)).foreach { id =>
      SQLMetrics.postDriverMetricUpdates(sc, id, metrics)
    }
}
