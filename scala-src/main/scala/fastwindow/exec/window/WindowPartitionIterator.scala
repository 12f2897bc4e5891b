package fastwindow.exec.window

import org.apache.spark.SparkException
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.fastwindow.PartitionRowBuffer

/**
 * The per-task loop of [[FastWindowExec]], built from four parts: a [[PartitionReader]] splits
 * the sorted input into window partitions, an [[EmitPolicy]] says when rows can be returned and
 * dropped, a [[MemoryGovernor]] says whether a partition's buffers may stay in memory, and an
 * [[OutputAssembler]] makes each output row. The loop ingests each row into the evaluator and
 * returns every row joined with its results, in input order, as soon as those results are known.
 *
 * Where rows wait: a streamed row whose results are known when it arrives (row_number, lag,
 * running ROWS frames, ...) is returned at once, without being copied; rows that wait for later
 * rows (a lead, a RANGE frame's peers, a frame reaching forward) wait in an in-memory queue
 * ([[PendingRows]]); if more than `maxPendingRows` would wait (e.g. a huge group of ORDER BY
 * ties), the rest of that partition goes to Spark's spillable row buffer and is returned when the
 * partition ends. A buffered (not streamed) partition's rows all go to that buffer.
 *
 * Memory: the columns, frame state and waiting rows are accounted by the governor (the rows in
 * `rowBuffer` are Spark's own, spillable). A buffered partition also reserves up front the frame
 * state its results will build (`WindowEvaluator.stateBytesPerRow`), because once its first row
 * is returned it can no longer change course. When the governor refuses a partition none of whose
 * rows has been returned, its columns are dropped (a fresh evaluator replaces the current one)
 * and the partition is handed to `sparkWindow`, Spark's own window evaluation over its spillable
 * rows: slower, the same results, and it fits wherever Spark fits. Without `sparkWindow` (the
 * partitions are seeded ranges of a window spread over tasks, which Spark's evaluation would start
 * from their first row) the buffers stay, as those of a partition that returned rows do.
 */
final class WindowPartitionIterator(
    reader: PartitionReader,
    evaluators: EvaluatorFactory,
    policy: EmitPolicy,
    output: OutputAssembler,
    memory: MemoryGovernor,
    rowBuffer: PartitionRowBuffer,
    maxPendingRows: Int,
    sparkWindow: Option[Iterator[UnsafeRow] => Iterator[InternalRow]],
    metrics: WindowPartitionIterator.Metrics,
    private var evaluator: WindowEvaluator)
  extends Iterator[InternalRow] {

  import WindowPartitionIterator.DiscardBatch

  /** Ingested rows not yet returned (copies), in order; those after them are in `rowBuffer`. */
  private val pending = new PendingRows(maxPendingRows)

  /** Whether rows of the current partition went to `rowBuffer` (all of them without streaming). */
  private var overflowed = false
  private var bufferedRows: Iterator[UnsafeRow] = Iterator.empty

  /** All rows of the current partition have been ingested (true before the first one). */
  private var complete = true

  /** Rows of the current partition ingested (the evaluator's `numRows`, kept here: read per row). */
  private var ingested = 0

  /** Rows of the current partition already returned. */
  private var emitted = 0
  private var released = false

  /** The current partition's output from `sparkWindow`, when it was handed over (else null). */
  private var handedOver: Iterator[InternalRow] = _

  /** When the task first asked for a row (0 before that), for the time metric. */
  private var startNanos = 0L

  override def hasNext: Boolean =
    handedOverHasNext || emitted < ingested || reader.hasRow || {
      // A streamed last partition may be fully returned before the input says it has ended.
      if (!complete) finishPartition() // which may hand the partition over
      handedOverHasNext || { close(); false }
    }

  override def next(): InternalRow = {
    if (startNanos == 0L) startNanos = System.nanoTime()
    var out: InternalRow = null
    while (out == null) {
      if (handedOver != null) {
        if (handedOverHasNext) out = handedOver.next()
      } else if (emitted < emittable) {
        out = emit(takeWaitingRow())
      } else if (!complete) {
        val row = reader.nextInPartition()
        if (row == null) finishPartition() else out = ingest(row)
      } else if (reader.hasRow) {
        startPartition()
      } else {
        throw new NoSuchElementException("no more window output rows")
      }
    }
    out
  }

  private def ready: Int = policy.ready(ingested, evaluator, complete)

  /** Rows that are ready and waiting where they can be read (the buffer only once complete). */
  private def emittable: Int =
    if (complete) ingested else math.min(ready, emitted + pending.size)

  private def startPartition(): Unit = {
    reader.startPartition()
    if (overflowed) rowBuffer.clear() // else it holds nothing
    evaluator.startPartition()
    memory.startPartition()
    overflowed = !policy.streams
    bufferedRows = Iterator.empty
    ingested = 0
    emitted = 0
    complete = false
  }

  /** Ingests `row`; returns its output if it is ready at once, else keeps it waiting. */
  private def ingest(row: UnsafeRow): InternalRow = {
    evaluator.ingest(row)
    ingested += 1
    val out = if (pending.isEmpty && !overflowed && ready == ingested) {
      emit(row)
    } else {
      if (overflowed || pending.isFull) {
        overflowed = true
        rowBuffer.add(row)
      } else {
        pending.add(row)
      }
      null
    }
    // After the row is stored: a partition handed over here goes to Spark with this row.
    if (ingested % DiscardBatch == 0) {
      if (policy.dropsRowsOnIngest) evaluator.discardBefore(ingested - 1)
      checkMemory()
    }
    out
  }

  /** The oldest waiting row; valid until the next row is added (it is returned right away). */
  private def takeWaitingRow(): UnsafeRow =
    if (pending.isEmpty) bufferedRows.next() else pending.poll()

  private def emit(row: UnsafeRow): InternalRow = {
    if (emitted == 0 || !output.resultsPerPartition) {
      evaluator.write(emitted, output.results)
      output.resultsWritten()
    }
    emitted += 1
    if (emitted % DiscardBatch == 0) {
      if (policy.streams) discardOldRows()
      checkMemory() // sliding frames' partials grow while rows are written
    }
    output.join(row)
  }

  /** Drops rows no later result reads, once they are many and most of the buffer (amortized O(1)). */
  private def discardOldRows(): Unit = {
    val first = evaluator.firstBufferedRow
    val keepFrom = policy.keepFrom(emitted, ingested)
    val drop = keepFrom - first
    if (drop >= DiscardBatch && 2 * drop >= ingested - first) {
      evaluator.discardBefore(keepFrom.toInt)
    }
  }

  /**
   * Hands the partition to Spark when the governor refuses its buffers (and, for a buffered
   * partition still being read, the frame state its results will build: twice the rows, as the
   * state's arrays grow by doubling).
   */
  private def checkMemory(): Unit = {
    val toCome =
      if (!policy.streams && !complete) 2L * evaluator.stateBytesPerRow * ingested else 0L
    val canHandOver = sparkWindow.isDefined && emitted == 0 && !complete
    if (memory.mustHandOver(evaluator.bufferBytes + pending.bytes, toCome, canHandOver, ingested)) {
      handOver()
    }
  }

  /**
   * Drops the current partition's columns (the evaluator is replaced by a fresh one) and returns
   * its memory, then feeds Spark's window evaluation the partition's rows: those waiting in
   * memory, then those in the row buffer, then its input rows not read yet.
   */
  private def handOver(): Unit = {
    val waiting = Iterator.fill(pending.size)(pending.poll())
    val buffered = if (overflowed) rowBuffer.iterator else Iterator.empty
    evaluator = evaluators.renew(evaluator)
    ingested = 0 // as the fresh evaluator's
    memory.release()
    handedOver = sparkWindow.getOrElse(throw SparkException.internalError(
        "fastwindow: a seeded range of a window needs Spark's evaluation"))(
      waiting ++ buffered ++ reader.restOfPartition)
  }

  /** Whether the handed-over partition has more rows; ends it when not (asks Spark only once). */
  private def handedOverHasNext: Boolean = handedOver != null && (handedOver.hasNext || {
    handedOver = null
    complete = true
    rowBuffer.clear()
    overflowed = false
    metrics.partitions += 1
    metrics.handedOverPartitions += 1
    false
  })

  private def finishPartition(): Unit = {
    checkMemory()
    if (handedOver != null) return
    evaluator.finishPartition()
    if (evaluator.needsSpark && emitted == 0) {
      handOver()
      return
    }
    complete = true
    if (overflowed) bufferedRows = rowBuffer.iterator
    metrics.partitions += 1
    (if (overflowed) metrics.bufferedPartitions else metrics.streamedPartitions) += 1
  }

  /**
   * Releases the row buffer (and its spill files) and records the task's metrics; called when the
   * input is exhausted and, for a task that stops early or fails, at task completion. Idempotent.
   */
  def close(): Unit = if (!released) {
    released = true
    rowBuffer.clear()
    metrics.spillSize += rowBuffer.spillSize
    metrics.peakMemory += math.max(memory.peak, evaluator.bufferBytes + pending.bytes)
    if (startNanos != 0L) metrics.time += (System.nanoTime() - startNanos) / 1000000
    memory.release()
  }
}

object WindowPartitionIterator {
  final case class Metrics(
      partitions: SQLMetric,
      streamedPartitions: SQLMetric,
      bufferedPartitions: SQLMetric,
      spillSize: SQLMetric,
      peakMemory: SQLMetric,
      time: SQLMetric,
      handedOverPartitions: SQLMetric)

  /** Rows between checks for discardable rows, and the fewest rows worth discarding. */
  val DiscardBatch = 1024
}
