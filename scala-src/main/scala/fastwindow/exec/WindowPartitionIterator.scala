package fastwindow.exec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.fastwindow.PartitionRowBuffer
import org.apache.spark.sql.types.DataType

/**
 * The per-task loop of [[FastWindowExec]]: splits the sorted input into window partitions, feeds
 * each partition's rows to the buffer and the evaluator, then emits every buffered row joined with
 * its results, in input order.
 *
 * Only the window outputs are serialized per output row (`outputProjection`); the child row's
 * bytes are copied as one block by `join`, instead of re-projecting every child column as
 * `WindowExec` does.
 */
final class WindowPartitionIterator(
    input: Iterator[InternalRow],
    toUnsafe: UnsafeProjection,
    groupKey: UnsafeProjection,
    sameGroup: (UnsafeRow, UnsafeRow) => Boolean,
    buffer: PartitionRowBuffer,
    evaluator: WindowEvaluator,
    functionTypes: Seq[DataType],
    outputProjection: UnsafeProjection,
    join: (UnsafeRow, UnsafeRow) => UnsafeRow,
    metrics: WindowPartitionIterator.Metrics) extends Iterator[InternalRow] {

  private val results = new SpecificInternalRow(functionTypes)

  private var nextRow: UnsafeRow = _
  private var nextGroup: UnsafeRow = _
  private var nextRowAvailable = false
  private var partitionRows: Iterator[UnsafeRow] = Iterator.empty
  // Position in the current partition; `rowIndex == partitionSize` means it is fully emitted
  // (cheaper than asking the row buffer's iterator, which checks for concurrent modification).
  private var rowIndex = 0
  private var partitionSize = 0
  private var done = false

  fetchNextRow()

  private def fetchNextRow(): Unit = {
    nextRowAvailable = input.hasNext
    if (nextRowAvailable) {
      nextRow = input.next() match {
        case u: UnsafeRow => u
        case other => toUnsafe(other)
      }
      nextGroup = groupKey(nextRow)
    }
  }

  private def fetchNextPartition(): Unit = {
    val currentGroup = nextGroup.copy()
    buffer.clear()
    evaluator.startPartition()
    while (nextRowAvailable && sameGroup(nextGroup, currentGroup)) {
      buffer.add(nextRow)
      evaluator.ingest(nextRow)
      fetchNextRow()
    }
    evaluator.finishPartition()
    partitionSize = evaluator.numRows
    metrics.partitions += 1
    metrics.outputRows += partitionSize
    partitionRows = buffer.iterator
    rowIndex = 0
  }

  override def hasNext: Boolean = {
    val more = rowIndex < partitionSize || nextRowAvailable
    if (!more && !done) {
      done = true
      buffer.clear()
      metrics.spillSize += buffer.spillSize
    }
    more
  }

  override def next(): InternalRow = {
    if (rowIndex == partitionSize) {
      if (!nextRowAvailable) throw new NoSuchElementException("no more window output rows")
      fetchNextPartition()
    }
    val current = partitionRows.next()
    evaluator.write(rowIndex, results)
    rowIndex += 1
    join(current, outputProjection(results))
  }
}

object WindowPartitionIterator {
  final case class Metrics(outputRows: SQLMetric, partitions: SQLMetric, spillSize: SQLMetric)
}
