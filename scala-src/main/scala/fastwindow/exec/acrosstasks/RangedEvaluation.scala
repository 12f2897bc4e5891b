package fastwindow.exec.acrosstasks

import org.apache.spark.SparkContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.SortOrder
import org.apache.spark.sql.execution.{SQLExecution, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import fastwindow.functions.AggregateSpec
import fastwindow.model.{FrameShape, FunctionSpec, Spread, WindowPlan}

/**
 * Runs a window without PARTITION BY over ranges of its ORDER BY keys, one task each: the
 * planner puts a range shuffle below the operator (Spark's own range partitioning, as a global
 * ORDER BY has), and Spark sorts each range.
 *
 *  1. **Summary pass** (one job, when there are two or more ranges): each range's summary
 *     ([[RangeSummarizer]]) from the shuffle's output, which is read again, not recomputed, and
 *     not sorted.
 *  2. **Combine** on the driver ([[RangeSeeds]]): each range's rows before it, seeded states
 *     and halo rows.
 *  3. **Evaluate**: each range's sorted rows with its seed, which reaches its task as the one
 *     element of the task's partition of a small RDD zipped with the input.
 */
object RangedEvaluation {

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
   * `input`: the operator's input (the ranges, sorted); `shuffled`: the range shuffle below it
   * (read again by the summary pass).
   */
  def apply(
      plan: WindowPlan,
      orderSpec: Seq[SortOrder],
      ranges: Spread.Ranges,
      shuffled: SparkPlan,
      input: RDD[InternalRow],
      evaluate: Evaluate,
      numRanges: SQLMetric,
      summaryTime: SQLMetric): RDD[InternalRow] = {
    val n = input.getNumPartitions
    if (n == 0) return input
    val start = System.nanoTime()
    val seeds = if (n == 1) Array(RangeSeed(0L, 0L, 0L, null, Array.empty, Array.empty))
    else seedsOf(plan, orderSpec, ranges, shuffled, input)
    summaryTime += (System.nanoTime() - start) / 1000000
    numRanges += n
    postDriverMetrics(input.sparkContext, Seq(numRanges, summaryTime))
    val seedRdd = input.sparkContext.parallelize(seeds.toSeq, n)
    input.zipPartitions(seedRdd, preservesPartitioning = true) { (rows, seed) =>
      evaluateRange(ranges, rows, seed.next(), evaluate)
    }
  }

  private def seedsOf(plan: WindowPlan, orderSpec: Seq[SortOrder], ranges: Spread.Ranges,
      source: SparkPlan, input: RDD[InternalRow]): Array[RangeSeed] = {
    val functions = plan.functions
    val seeded = ranges match {
      case Spread.Seeded => functions.indices.collect {
          case k if isRunning(functions(k)) => k -> functions(k).asInstanceOf[AggregateSpec]
        }
      case _: Spread.Halos => Nil
    }
    val fold =
      if (seeded.isEmpty) None else Some(new StateFold(seeded.map(_._2.function), source.output))
    val (before, after) = ranges match {
      case h: Spread.Halos => (h.before, h.after)
      case Spread.Seeded => (0, 0)
    }
    val summarizer = new RangeSummarizer(fold, orderSpec, source.output, after, before)
    val summaries = source.execute().mapPartitions(rows => Iterator(summarizer.summarize(rows)))
      .collect()
    def foldInOrder(i: Int, state: InternalRow): InternalRow = {
      val f = fold.get
      input.sparkContext.runJob(input, (rows: Iterator[InternalRow]) => f.fold(state, rows), Seq(i))
        .head
    }
    RangeSeeds.combine(summaries, fold, seeded.map(_._1), functions.length, foldInOrder,
      before, after)
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
