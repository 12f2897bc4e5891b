package fastwindow.exec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.fastwindow.PartitionRowBuffer
import org.apache.spark.unsafe.Platform
import org.slf4j.LoggerFactory

import fastwindow.planning.StreamBounds

/**
 * The per-task loop of [[FastWindowExec]]: splits the sorted input into window partitions,
 * ingests each row into the evaluator and returns every row joined with its results, in input
 * order, as soon as those results are known.
 *
 * With `streaming` bounds (see [[StreamBounds]]) a row whose results are known when it arrives
 * (row_number, lag, running ROWS frames, ...) is returned at once, without being copied; rows
 * that wait for later rows (a lead, a RANGE frame's peers, a frame reaching forward) wait in an
 * in-memory queue, and the evaluator regularly drops rows no later result reads, so memory stays
 * O(frame), not O(partition). If more than `maxPendingRows` rows would wait (e.g. a huge group of
 * ORDER BY ties), the rest of that partition goes to Spark's spillable row buffer and is returned
 * when the partition ends. Without streaming bounds every row goes to that buffer; the evaluator
 * still drops ingested rows when no result reads them (`readsNoRowsOnWrite`, e.g. only
 * whole-partition aggregates), so its columns stay small.
 *
 * The evaluator writes each row's function `results`; only the window outputs are serialized
 * from them (`project`, the identity when `results` is already the output UnsafeRow), and the
 * child row's bytes are copied in a few blocks by `join` ([[RowAppender]]), instead of
 * re-projecting every child column as `WindowExec` does. When every function is a
 * whole-partition aggregate (`resultsPerPartition`), all rows of a partition share their results,
 * which are then written and serialized once per partition rather than once per row.
 *
 * Memory: the columns, frame state and waiting rows are accounted to Spark through `memory`
 * (the rows in `buffer` are Spark's own, spillable). A buffered partition reserves up front the
 * frame state its results will build (`WindowEvaluator.stateBytesPerRow`), because once its
 * first row is returned it can no longer change course. When a partition none of whose rows has been returned
 * would need more than Spark's memory manager grants, or than `maxPartitionBytes` (0: no limit),
 * its columns are dropped and the partition is handed to `sparkWindow`, Spark's own window
 * evaluation over its spillable row buffer: slower, the same results, and it fits wherever Spark
 * fits. Only a partition that has already returned rows (a streamed one, whose buffers stay
 * O(frame) unless a huge group of ties holds them) keeps its buffers unaccounted, with a warning.
 */
final class WindowPartitionIterator(
    input: Iterator[InternalRow],
    toUnsafe: UnsafeProjection,
    partitionKey: PartitionKey,
    private var evaluator: WindowEvaluator,
    renewEvaluator: () => WindowEvaluator,
    streaming: Option[StreamBounds],
    readsNoRowsOnWrite: Boolean,
    maxPendingRows: Int,
    buffer: PartitionRowBuffer,
    memory: Option[ColumnMemory],
    maxPartitionBytes: Long,
    sparkWindow: Iterator[UnsafeRow] => Iterator[InternalRow],
    results: InternalRow,
    project: InternalRow => UnsafeRow,
    resultsPerPartition: Boolean,
    join: RowAppender,
    metrics: WindowPartitionIterator.Metrics) extends Iterator[InternalRow] {

  import WindowPartitionIterator.{log, DiscardBatch}

  private val lookahead = streaming.fold(0)(_.lookahead)
  private val history = streaming.fold(0)(_.history)
  private val waitsForPeers = streaming.exists(_.waitsForPeers)

  /** Ingested rows not yet returned (copies), in order; those after them are in `buffer`. */
  private val pending = new PendingRows(maxPendingRows)
  /** Whether rows of the current partition went to `buffer` (all of them without streaming). */
  private var overflowed = false
  private var bufferedRows: Iterator[UnsafeRow] = Iterator.empty
  /** All rows of the current partition have been ingested (true before the first one). */
  private var complete = true
  /** Rows of the current partition already returned. */
  private var emitted = 0
  /** The next input row, read but not ingested yet. */
  private var held: UnsafeRow = _
  /** The serialized results of the last row returned (those of the partition's rows, with
   *  `resultsPerPartition`); the projection reuses it, so only valid until the next `project`. */
  private var projected: UnsafeRow = _
  private var released = false
  /** The current partition's output from `sparkWindow`, when it was handed over (else null). */
  private var handedOver: Iterator[InternalRow] = _
  private var handedOverRows = 0L
  /** Spark refused memory for this partition after rows of it were returned (see checkMemory). */
  private var unaccounted = false
  private var warnedUnaccounted = false
  private var warnedHandOver = false
  private var peakBytes = 0L
  /** What the last `trackMemory` asked to account. */
  private var needed = 0L
  /** When the task first asked for a row (0 before that), for the time metric. */
  private var startNanos = 0L

  override def hasNext: Boolean =
    handedOverHasNext || emitted < evaluator.numRows || held != null || input.hasNext || {
      // A streamed last partition may be fully returned before the input says it has ended.
      if (!complete) finishPartition()  // which may hand the partition over
      handedOverHasNext || { close(); false }
    }

  override def next(): InternalRow = {
    if (startNanos == 0L) startNanos = System.nanoTime()
    var out: InternalRow = null
    while (out == null) {
      if (handedOver != null) {
        if (handedOverHasNext) {
          handedOverRows += 1
          out = handedOver.next()
        }
      } else if (emitted < emittable) out = emit(takeWaitingRow())
      else if (held == null && !fetch()) {
        if (complete) throw new NoSuchElementException("no more window output rows")
        finishPartition()
      } else if (complete) startPartition()
      else if (!partitionKey.sameAsCurrent(held)) finishPartition()
      else {
        val row = held
        held = null
        out = ingest(row)
      }
    }
    out
  }

  /** Rows of the current partition whose results the evaluator can write now. */
  private def ready: Int = {
    val rows = evaluator.numRows
    if (complete) rows
    else if (streaming.isEmpty) 0
    else if (waitsForPeers) math.min(rows - lookahead, evaluator.lastPeerGroupStart)
    else rows - lookahead
  }

  /** Rows that are ready and waiting where they can be read (the buffer only once complete). */
  private def emittable: Int =
    if (complete) evaluator.numRows else math.min(ready, emitted + pending.size)

  private def fetch(): Boolean = input.hasNext && {
    held = input.next() match {
      case u: UnsafeRow => u
      case other => toUnsafe(other)
    }
    true
  }

  private def startPartition(): Unit = {
    partitionKey.start(held)
    if (overflowed) buffer.clear()  // else it holds nothing
    evaluator.startPartition()
    unaccounted = false
    overflowed = streaming.isEmpty
    bufferedRows = Iterator.empty
    emitted = 0
    complete = false
  }

  /** Ingests `row`; returns its output if it is ready at once, else keeps it waiting. */
  private def ingest(row: UnsafeRow): InternalRow = {
    evaluator.ingest(row)
    val out = if (pending.isEmpty && !overflowed && ready == evaluator.numRows) {
      emit(row)
    } else {
      if (overflowed || pending.isFull) {
        overflowed = true
        buffer.add(row)
      } else {
        pending.add(row)
      }
      null
    }
    // After the row is stored: a partition handed over here goes to Spark with this row.
    if (evaluator.numRows % DiscardBatch == 0) {
      if (readsNoRowsOnWrite) evaluator.discardBefore(evaluator.numRows - 1)
      checkMemory(inputEnded = false)
    }
    out
  }

  /** The oldest waiting row; valid until the next row is added (it is returned right away). */
  private def takeWaitingRow(): UnsafeRow =
    if (pending.isEmpty) bufferedRows.next() else pending.poll()

  private def emit(row: UnsafeRow): InternalRow = {
    if (emitted == 0 || !resultsPerPartition) {
      evaluator.write(emitted, results)
      projected = project(results)
    }
    emitted += 1
    if (emitted % DiscardBatch == 0) {
      if (streaming.isDefined) discardOldRows()
      checkMemory(inputEnded = false)  // sliding frames' partials grow while rows are written
    }
    join(row, projected)
  }

  /** Drops rows no later result reads, once they are many and most of the buffer (amortized O(1)). */
  private def discardOldRows(): Unit = {
    val first = evaluator.firstBufferedRow
    val keepFrom = math.min(emitted.toLong - history, evaluator.numRows - 1L)
    val drop = keepFrom - first
    if (drop >= DiscardBatch && 2 * drop >= evaluator.numRows - first) {
      evaluator.discardBefore(keepFrom.toInt)
    }
  }

  /**
   * Accounts the buffers (and, for a buffered partition still being read, the frame state its
   * results will build); false when they exceed `maxPartitionBytes` or Spark refuses the memory.
   */
  private def trackMemory(): Boolean = {
    val bytes = evaluator.bufferBytes + pending.bytes
    peakBytes = math.max(peakBytes, bytes)
    // Twice the rows: the state's arrays grow by doubling.
    needed = if (streaming.isEmpty && !complete) {
      bytes + 2L * evaluator.stateBytesPerRow * evaluator.numRows
    } else bytes
    (maxPartitionBytes <= 0 || needed <= maxPartitionBytes) &&
      (unaccounted || memory.forall(_.reserve(needed)))
  }

  /**
   * Hands the partition to Spark when its buffers do not fit and none of its rows was returned;
   * otherwise keeps them, unaccounted, and stops asking: every refused request makes the memory
   * manager spill the row buffer again, in ever smaller pieces.
   */
  private def checkMemory(inputEnded: Boolean): Unit = if (!trackMemory()) {
    if (emitted == 0 && !complete) handOver(inputEnded)
    else if (!unaccounted) {
      unaccounted = true
      if (!warnedUnaccounted) {
        warnedUnaccounted = true
        log.warn(s"fastwindow: a window partition's column buffers need " +
          s"${evaluator.bufferBytes} bytes, more $memoryLimit, after some of its rows were " +
          "returned; they stay on the heap unaccounted. Raise spark.executor.memory or lower " +
          "the partition size if tasks fail.")
      }
    }
  }

  /** Which limit the buffers ran into, for warnings. */
  private def memoryLimit: String =
    if (maxPartitionBytes > 0 && needed > maxPartitionBytes) {
      s"than spark.fastwindow.memory.maxPartitionBytes=$maxPartitionBytes allows"
    } else "than Spark's memory manager grants the task"

  /**
   * Drops the current partition's columns (the evaluator is replaced by a fresh one) and returns
   * its memory, then feeds Spark's window evaluation the partition's rows: those waiting in
   * memory, then those in the row buffer, then its input rows not read yet (`inputEnded`: none).
   */
  private def handOver(inputEnded: Boolean): Unit = {
    if (!warnedHandOver) {
      warnedHandOver = true
      log.warn(s"fastwindow: a window partition of at least ${evaluator.numRows} rows needs more " +
        s"memory for its column buffers and frame state $memoryLimit; it is evaluated by " +
        "Spark's own window frames over its spillable rows (same results, slower). Later such " +
        "partitions of this task are handed over without another warning.")
    }
    val waiting = Iterator.fill(pending.size)(pending.poll())
    val buffered = if (overflowed) buffer.iterator else Iterator.empty
    evaluator = renewEvaluator()
    memory.foreach(_.release())
    handedOverRows = 0
    handedOver = sparkWindow(waiting ++ buffered ++ new UnreadRows(inputEnded))
  }

  /** Whether the handed-over partition has more rows; ends it when not (asks Spark only once). */
  private def handedOverHasNext: Boolean = handedOver != null && (handedOver.hasNext || {
    handedOver = null
    complete = true
    buffer.clear()
    overflowed = false
    metrics.partitions += 1
    metrics.outputRows += handedOverRows
    metrics.handedOverPartitions += 1
    false
  })

  /** The current partition's input rows not read yet; the next partition's first row stays held. */
  private final class UnreadRows(private var ended: Boolean) extends Iterator[UnsafeRow] {
    override def hasNext: Boolean = {
      if (!ended && held == null && !fetch()) ended = true
      if (!ended && !partitionKey.sameAsCurrent(held)) ended = true
      !ended
    }
    override def next(): UnsafeRow = {
      val row = held
      held = null
      row
    }
  }

  private def finishPartition(): Unit = {
    checkMemory(inputEnded = true)
    if (handedOver != null) return
    evaluator.finishPartition()
    complete = true
    if (overflowed) bufferedRows = buffer.iterator
    metrics.partitions += 1
    metrics.outputRows += evaluator.numRows
    (if (overflowed) metrics.bufferedPartitions else metrics.streamedPartitions) += 1
  }

  /**
   * Releases the row buffer (and its spill files) and records the task's metrics; called when the
   * input is exhausted and, for a task that stops early or fails, at task completion. Idempotent.
   */
  def close(): Unit = if (!released) {
    released = true
    buffer.clear()
    metrics.spillSize += buffer.spillSize
    metrics.peakMemory += math.max(peakBytes, evaluator.bufferBytes + pending.bytes)
    if (startNanos != 0L) metrics.time += (System.nanoTime() - startNanos) / 1000000
    memory.foreach(_.release())
  }
}

/**
 * A FIFO of row copies that reuses its memory: a ring of UnsafeRows, each pointing into a byte
 * array of its own that is only reallocated when a longer row arrives; grows up to `limit` rows.
 * Its capacity is a power of two, so positions wrap with a mask.
 */
final class PendingRows(limit: Int) {
  private var rows = new Array[UnsafeRow](16)
  private var head = 0
  private var count = 0
  private var heldBytes = 0L

  def size: Int = count
  def isEmpty: Boolean = count == 0
  def isFull: Boolean = count >= limit
  /** Bytes held by the ring's rows (their arrays' capacity, which only grows). */
  def bytes: Long = heldBytes

  def add(row: UnsafeRow): Unit = {
    if (count == rows.length) grow()
    val slot = (head + count) & (rows.length - 1)
    val size = row.getSizeInBytes
    var copy = rows(slot)
    val held = if (copy == null) 0 else copy.getBaseObject.asInstanceOf[Array[Byte]].length
    // A zero-width row (no columns left after pruning) still needs a row object to return.
    if (copy == null || held < size) {
      val capacity = math.max(size, 64)
      copy = new UnsafeRow(row.numFields)
      copy.pointTo(new Array[Byte](capacity), size)
      rows(slot) = copy
      heldBytes += capacity - held
    }
    val target = copy.getBaseObject.asInstanceOf[Array[Byte]]
    row.getBaseObject match {
      // Most rows live in byte arrays; arraycopy skips copyMemory's costly argument checks.
      case bytes: Array[Byte] =>
        System.arraycopy(bytes, (row.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt, target,
          0, size)
      case base =>
        Platform.copyMemory(base, row.getBaseOffset, target, Platform.BYTE_ARRAY_OFFSET, size)
    }
    copy.setTotalSize(size)
    count += 1
  }

  def poll(): UnsafeRow = {
    val row = rows(head)
    head = (head + 1) & (rows.length - 1)
    count -= 1
    row
  }

  private def grow(): Unit = {
    val bigger = new Array[UnsafeRow](rows.length * 2)
    for (k <- 0 until count) bigger(k) = rows((head + k) & (rows.length - 1))
    rows = bigger
    head = 0
  }
}

object WindowPartitionIterator {
  final case class Metrics(
      outputRows: SQLMetric,
      partitions: SQLMetric,
      streamedPartitions: SQLMetric,
      bufferedPartitions: SQLMetric,
      spillSize: SQLMetric,
      peakMemory: SQLMetric,
      time: SQLMetric,
      handedOverPartitions: SQLMetric)

  /** Rows between checks for discardable rows, and the fewest rows worth discarding. */
  val DiscardBatch = 1024

  private val log = LoggerFactory.getLogger(classOf[WindowPartitionIterator])
}
