package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.{PartitionEvaluator, PartitionEvaluatorFactory, SparkContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, JoinedRow, NamedExpression, SortOrder, SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.{ExternalAppendOnlyUnsafeRowArray, LocalTableScanExec, SparkPlan}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.window.{WindowExecBase, WindowFunctionFrame}
import org.apache.spark.sql.internal.SQLConf

/**
 * Spark 3.5: `WindowExec` evaluates partitions inline (it has no evaluator factory yet), so the
 * hand-over of a partition too large for fastwindow's buffers runs Spark's own window frames
 * here: rows are grouped by partition key into Spark's spillable buffer, then each frame of
 * `WindowExec` writes its results row by row — what `WindowExec.doExecute` does on this line.
 */
object WindowEvaluatorShim {
  def sparkWindowFactory(
      sc: SparkContext,
      windowExpression: Seq[NamedExpression],
      partitionSpec: Seq[Expression],
      orderSpec: Seq[SortOrder],
      childOutput: Seq[Attribute],
      spillSize: SQLMetric): PartitionEvaluatorFactory[InternalRow, InternalRow] = {
    val conf = SQLConf.get
    new SparkWindowFactory(
      SparkWindowFrames(windowExpression, partitionSpec, orderSpec,
        LocalTableScanExec(childOutput, Nil)),
      conf.windowExecBufferInMemoryThreshold, conf.windowExecBufferSpillThreshold, spillSize)
  }

  /**
   * Gives access to `WindowExecBase`'s frame factories and result projection, which are
   * protected; never executed itself.
   */
  private case class SparkWindowFrames(
      windowExpression: Seq[NamedExpression],
      partitionSpec: Seq[Expression],
      orderSpec: Seq[SortOrder],
      child: SparkPlan) extends WindowExecBase {
    def frameFactories: Seq[InternalRow => WindowFunctionFrame] =
      windowFrameExpressionFactoryPairs.map(_._2)
    /** The window functions in the order their frames write them into the results row. */
    def functions: Seq[Expression] = windowFrameExpressionFactoryPairs.flatMap(_._1)
    def resultProjection: UnsafeProjection = createResultProjection(functions)
    override protected def doExecute(): RDD[InternalRow] =
      throw new UnsupportedOperationException("a holder of WindowExec's frames")
    override protected def withNewChildInternal(newChild: SparkPlan): SparkWindowFrames =
      copy(child = newChild)
  }

  private final class SparkWindowFactory(
      frames: SparkWindowFrames,
      inMemoryThreshold: Int,
      spillThreshold: Int,
      spillSize: SQLMetric) extends PartitionEvaluatorFactory[InternalRow, InternalRow] {
    override def createEvaluator(): PartitionEvaluator[InternalRow, InternalRow] =
      new PartitionEvaluator[InternalRow, InternalRow] {
        override def eval(partitionIndex: Int, inputs: Iterator[InternalRow]*)
            : Iterator[InternalRow] =
          new SparkWindowIterator(frames, inMemoryThreshold, spillThreshold, spillSize,
            inputs.head)
      }
  }

  /** Rows in, rows with their window results out, one window partition at a time. */
  private final class SparkWindowIterator(
      frames: SparkWindowFrames,
      inMemoryThreshold: Int,
      spillThreshold: Int,
      spillSize: SQLMetric,
      input: Iterator[InternalRow]) extends Iterator[InternalRow] {
    private val results = new SpecificInternalRow(frames.functions.map(_.dataType))
    private val windowFrames = frames.frameFactories.map(_(results)).toArray
    private val partitionKey = UnsafeProjection.create(frames.partitionSpec, frames.child.output)
    private val project = frames.resultProjection
    private val joined = new JoinedRow
    private val buffer = new ExternalAppendOnlyUnsafeRowArray(inMemoryThreshold, spillThreshold)

    private var nextRow: UnsafeRow = fetch()
    private var nextKey: UnsafeRow = if (nextRow == null) null else partitionKey(nextRow).copy()
    private var rows: Iterator[UnsafeRow] = Iterator.empty
    private var index = 0

    private def fetch(): UnsafeRow =
      if (input.hasNext) input.next().asInstanceOf[UnsafeRow].copy() else null

    private def readPartition(): Unit = {
      val key = nextKey
      buffer.clear()
      while (nextRow != null && nextKey == key) {
        buffer.add(nextRow)
        nextRow = fetch()
        nextKey = if (nextRow == null) null else partitionKey(nextRow).copy()
      }
      windowFrames.foreach(_.prepare(buffer))
      spillSize += buffer.spillSize
      rows = buffer.generateIterator()
      index = 0
    }

    override def hasNext: Boolean = {
      if (!rows.hasNext && nextRow != null) readPartition()
      val more = rows.hasNext
      if (!more) buffer.clear()
      more
    }

    override def next(): InternalRow = {
      if (!hasNext) throw new NoSuchElementException
      val row = rows.next()
      windowFrames.foreach(_.write(index, row))
      index += 1
      project(joined(row, results))
    }
  }
}
