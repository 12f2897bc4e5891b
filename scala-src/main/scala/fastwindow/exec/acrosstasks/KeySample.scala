package fastwindow.exec.acrosstasks

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, NamedExpression, UnsafeProjection}
import org.apache.spark.sql.execution.{ColumnarToRowExec, InputAdapter, ProjectExec, SparkPlan, WholeStageCodegenExec}

/**
 * The sample of ORDER BY keys the range bounds come from: per input partition, how many rows it
 * has and a uniform sample of their keys ([[Reservoir]]).
 *
 * Where the keys are a projection of a columnar scan (Parquet, ORC, a cached table; no filter
 * between), the sample reads the scan's column batches and picks rows by index: only the rows it
 * keeps become rows, the others are counted by the batch, where Spark's row plan would convert
 * and project every row of the key columns (the cost: docs/support.md, windows across tasks).
 */
object KeySample {

  /**
   * (rows, sampled keys) of each partition of `plan`, whose output is the keys; `sizeFor(n)`: how
   * many keys a partition's sample keeps when there are n partitions.
   */
  def ofPlan(plan: SparkPlan, sizeFor: Int => Int): Array[(Long, Array[InternalRow])] =
    columnarSource(plan) match {
      case Some((keys, scan)) =>
        val batches = scan.executeColumnar()
        val size = sizeFor(batches.getNumPartitions)
        batches.mapPartitionsWithIndex { (index, batches) =>
          val project = UnsafeProjection.create(keys, scan.output)
          val reservoir = new Reservoir(size, seed = index)
          batches.foreach(b => reservoir.offerBatch(b.numRows, i => project(b.getRow(i))))
          Iterator(reservoir.result)
        }.collect()
      case None => ofRows(plan.execute(), sizeFor, () => row => row)
    }

  /** The same of `rows`, whose keys `keysOf` projects. */
  def ofRows(rows: RDD[InternalRow], sizeFor: Int => Int,
      keysOf: () => InternalRow => InternalRow): Array[(Long, Array[InternalRow])] = {
    val size = sizeFor(rows.getNumPartitions)
    rows.mapPartitionsWithIndex { (index, rows) =>
      val keys = keysOf()
      val reservoir = new Reservoir(size, seed = index)
      rows.foreach(row => reservoir.offerRow(keys(row)))
      Iterator(reservoir.result)
    }.collect()
  }

  /**
   * The keys (bound to the scan's output) and the columnar scan under a plan that only projects
   * it: `Project(keys, ColumnarToRow(scan))`, through whole-stage code generation.
   */
  private def columnarSource(plan: SparkPlan): Option[(Seq[Expression], SparkPlan)] = {
    def below(p: SparkPlan): Option[SparkPlan] = p match {
      case w: WholeStageCodegenExec => below(w.child)
      case i: InputAdapter => below(i.child)
      case c: ColumnarToRowExec if c.child.supportsColumnar => Some(c.child)
      case _ => None
    }
    def keysOf(list: Seq[NamedExpression], scan: SparkPlan): Option[Seq[Expression]] =
      if (list.forall(e => e.deterministic && e.references.subsetOf(scan.outputSet))) Some(list)
      else None
    plan match {
      case w: WholeStageCodegenExec => columnarSource(w.child)
      case ProjectExec(list, child) =>
        below(child).flatMap(scan => keysOf(list, scan).map(keys => (keys, scan)))
      case other => below(other).map(scan => (scan.output: Seq[Attribute], scan))
    }
  }
}
