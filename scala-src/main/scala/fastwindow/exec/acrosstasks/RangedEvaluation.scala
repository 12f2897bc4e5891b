package fastwindow.exec.acrosstasks

import org.apache.spark.SparkContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SortOrder
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.execution.{SQLExecution, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.fastwindow.MapStage

import fastwindow.functions.AggregateSpec
import fastwindow.model.{FrameShape, FunctionSpec, Spread, WindowPlan}

/**
 * Runs a window without PARTITION BY over ranges of its ORDER BY keys, one task each: the
 * planner puts the shuffle that splits the rows into ranges below the operator
 * ([[RangeSplitExec]]), and Spark sorts each range.
 *
 *  1. **Summaries**: each task's summary, from the map tasks' summaries of the ranges it reads
 *     (when there are two or more tasks); past the map side's cap, from one job that reads the
 *     shuffle's output again (not recomputed, not sorted) and summarises each task's rows.
 *  2. **Combine** on the driver ([[RangeSeeds]]): each range's rows before it, seeded states
 *     and halo rows.
 *  3. **Evaluate**: each range's sorted rows with its seed, which reaches its task as the one
 *     element of the task's partition of a small RDD zipped with the input.
 */
object RangedEvaluation {

  /** The operator's metrics of its ranges: how many, the driver's time, second reads. */
  final case class Metrics(numRanges: SQLMetric, summaryTime: SQLMetric, summaryReads: SQLMetric)

  /** The operator's own evaluation of some rows, seeded (or not: null). */
  type Evaluate = (Iterator[InternalRow], RangeSeed) => Iterator[InternalRow]

  /**
   * A range's output: seeded functions start from the seed; halo functions evaluate the rows
   * before the range, the range and the rows after it, and only the range's rows are returned.
   */
  def evaluateRange(ranges: Spread.Ranges, rows: Iterator[InternalRow], seed: RangeSeed,
      evaluate: Evaluate): Iterator[InternalRow] = ranges match {
    case Spread.Seeded => evaluate(rows, seed)
    case _: Spread.Halos =>
      val out = evaluate(seed.before.iterator ++ rows ++ seed.after.iterator, null)
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
   * below it, as the operator reads it (through adaptive execution's coalescing, if any).
   */
  def apply(
      plan: WindowPlan,
      order: Seq[SortOrder],
      ranges: Spread.Ranges,
      shuffled: SparkPlan,
      input: RDD[InternalRow],
      evaluate: Evaluate,
      metrics: Metrics): RDD[InternalRow] = {
    val n = input.getNumPartitions
    if (n == 0) return input
    val start = System.nanoTime()
    val seeds = if (n == 1) Array(RangeSeed(0L, 0L, 0L, null, Array.empty, Array.empty))
    else seedsOf(plan, order, ranges, shuffled, input, metrics.summaryReads)
    metrics.summaryTime += (System.nanoTime() - start) / 1000000
    metrics.numRanges += n
    postDriverMetrics(input.sparkContext,
      Seq(metrics.numRanges, metrics.summaryTime, metrics.summaryReads))
    val seedRdd = input.sparkContext.parallelize(seeds.toSeq, n)
    input.zipPartitions(seedRdd, preservesPartitioning = true) { (rows, seed) =>
      evaluateRange(ranges, rows, seed.next(), evaluate)
    }
  }

  private def seedsOf(plan: WindowPlan, order: Seq[SortOrder], ranges: Spread.Ranges,
      source: SparkPlan, input: RDD[InternalRow], summaryReads: SQLMetric): Array[RangeSeed] = {
    val seeded = seededAggregates(plan, ranges)
    val fold =
      if (seeded.isEmpty) None else Some(new StateFold(seeded.map(_._2.function), source.output))
    val (before, after) = ranges match {
      case h: Spread.Halos => (h.before, h.after)
      case Spread.Seeded => (0, 0)
    }
    val shape = SummaryShape(fold, order, after, before)
    val summaries = fromMapTasks(source, shape, input.getNumPartitions).getOrElse {
      summaryReads += 1
      val output = source.output
      source.execute()
        .mapPartitions(rows => Iterator(RangeSummarizer.summarize(shape, output, rows)))
        .collect()
    }
    def foldInOrder(i: Int, state: InternalRow): InternalRow = {
      val f = fold.get
      input.sparkContext.runJob(input, (rows: Iterator[InternalRow]) => f.fold(state, rows), Seq(i))
        .head
    }
    RangeSeeds.combine(summaries, fold, seeded.map(_._1), plan.functions.length, foldInOrder,
      before, after)
  }

  /**
   * The summary of each of the operator's `numTasks` tasks from the map tasks' summaries of the
   * ranges it reads (see [[RangeSplitExec]]), when the split below `source` made them for what
   * `shape` asks (after its map stage has run; it runs here when adaptive execution has not run
   * it yet); None otherwise.
   */
  private def fromMapTasks(
      source: SparkPlan, shape: SummaryShape, numTasks: Int): Option[Array[RangeSummary]] =
    RangeSplitExec.below(source).flatMap { case (exchange, split, reads) =>
      val ranges = reads.getOrElse((0 until split.bounds.numRanges).map(r => (r, r + 1)))
      if (!split.serves(shape) || ranges.length != numTasks) None
      else {
        val dependency = exchange.shuffleDependency
        MapStage.materialize(dependency.rdd.sparkContext, dependency)
        split.mapSummaries.collect {
          case (summaries, numMaps) if summaries.value.size == numMaps =>
            val byMap = (0 until numMaps).map(m => summaries.value.get(m))
            val ordering = new LazilyGeneratedOrdering(shape.order, source.output)
            ranges.map { case (from, until) =>
              val parts = for (range <- from until until; map <- byMap) yield map(range)
              RangeSummary.concat(parts, shape.fold, ordering, shape.firstRows, shape.lastRows)
            }.toArray
        }
      }
    }

  /** The seeded functions of `plan` (running aggregates) by slot, when `ranges` seeds them. */
  def seededAggregates(plan: WindowPlan, ranges: Spread.Ranges): Seq[(Int, AggregateSpec)] =
    ranges match {
      case Spread.Seeded => plan.functions.indices.collect {
          case k if isRunning(plan.functions(k)) =>
            k -> plan.functions(k).asInstanceOf[AggregateSpec]
        }
      case _: Spread.Halos => Nil
    }

  private def isRunning(f: FunctionSpec): Boolean = f match {
    case a: AggregateSpec => a.frame == FrameShape.RunningRows || a.frame == FrameShape.RunningRange
    case _ => false
  }

  private def postDriverMetrics(sc: SparkContext, metrics: Seq[SQLMetric]): Unit =
    Option(sc.getLocalProperty(SQLExecution.EXECUTION_ID_KEY)).foreach { id =>
      SQLMetrics.postDriverMetricUpdates(sc, id, metrics)
    }
}
