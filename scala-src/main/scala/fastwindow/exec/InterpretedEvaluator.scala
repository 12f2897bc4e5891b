package fastwindow.exec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.types.PhysicalDataType

import fastwindow.buffer.Column
import fastwindow.kernels.{AggregateKernel, Kernel, OffsetKernel, PartitionCursor, RankingKernel}
import fastwindow.planning.{AggregateSpec, OffsetSpec, RankingSpec}

/**
 * The interpreted twin of the generated evaluator: the same columns and kernels, with input
 * expressions evaluated by `Expression.eval` and each function run by a [[Kernel]] object.
 * Results are identical to the generated path by contract (and tests run the suite on both).
 */
final class InterpretedEvaluator(layout: EvaluatorLayout) extends WindowEvaluator {

  private val columns: Array[Column] = layout.columns.map(c => Column(c.dataType)).toArray
  private val extractors = layout.columns.map(_.bound).toArray
  private val cursor = new PartitionCursor
  private val peerKeys: Array[(Column, Ordering[Any])] = layout.peerKeyColumns.map { c =>
    (columns(c.index), PhysicalDataType.ordering(c.dataType))
  }.toArray

  private val kernels: Array[Kernel] = layout.plan.functions.map {
    case r: RankingSpec => new RankingKernel.Interpreted(r, cursor)
    case o: OffsetSpec =>
      val (input, default) = layout.offsetColumns(o)
      val defaultValue = default match {
        case Some(c) => OffsetKernel.ColumnDefault(columns(c.index))
        case None => OffsetKernel.ConstantDefault(o.default.map(_.eval()).orNull)
      }
      new OffsetKernel.Interpreted(o, columns(input.index), defaultValue)
    case a: AggregateSpec =>
      new AggregateKernel.Interpreted(a, layout.columnarAggregate(a), layout.columnAttributes,
        columns, layout.rangeKeyColumn(a).map(c => columns(c.index)), cursor)
  }.toArray

  private val needsPeers = layout.plan.needsPeers
  private var capacity = Column.InitialCapacity
  /** Rows buffered; buffered row r is the partition's row cursor.base + r. */
  private var rows = 0
  private var lastPeerStart = 0

  override def numRows: Int = cursor.base + rows
  override def firstBufferedRow: Int = cursor.base
  override def lastPeerGroupStart: Int = cursor.base + lastPeerStart
  override def bufferBytes: Long = layout.bytesPerRow * capacity + kernels.map(_.stateBytes).sum
  override def stateBytesPerRow: Long = kernels.map(_.stateBytesPerRow).sum

  override def startPartition(): Unit = {
    rows = 0
    lastPeerStart = 0
    cursor.reset()
    kernels.foreach(_.startPartition())
  }

  override def ingest(row: InternalRow): Unit = {
    val r = rows
    if (r == capacity) {
      capacity = Column.grownCapacity(capacity, r + 1)
      columns.foreach(_.grow(capacity, r))
      if (needsPeers) cursor.peerBreak = java.util.Arrays.copyOf(cursor.peerBreak, capacity)
    }
    var k = 0
    while (k < columns.length) {
      columns(k).put(r, extractors(k).eval(row))
      k += 1
    }
    if (needsPeers) {
      val break = cursor.base + r == 0 || !samePeerKeys(r, r - 1)
      cursor.peerBreak(r) = break
      if (break) lastPeerStart = r
    }
    rows = r + 1
    k = 0
    while (k < kernels.length) {
      kernels(k).ingested(r)
      k += 1
    }
  }

  /** Rows are peers when every ORDER BY key compares equal (nulls equal nulls), as in Spark. */
  private def samePeerKeys(a: Int, b: Int): Boolean = peerKeys.forall { case (column, ordering) =>
    val aNull = column.isNull(a)
    aNull == column.isNull(b) && (aNull || ordering.compare(column.get(a), column.get(b)) == 0)
  }

  override def finishPartition(): Unit = kernels.foreach(_.finishPartition(numRows))

  override def write(row: Int, out: InternalRow): Unit = {
    val i = row - cursor.base
    if (needsPeers) cursor.advance(i, rows)
    var k = 0
    while (k < kernels.length) {
      kernels(k).write(i, rows, out)
      k += 1
    }
  }

  override def discardBefore(row: Int): Unit = {
    val d = row - cursor.base
    if (d > 0) {
      val kept = rows - d
      columns.foreach(_.shift(d, kept))
      kernels.foreach(_.shift(d))
      if (needsPeers) cursor.shift(d, kept)
      else cursor.base += d
      lastPeerStart -= d
      rows = kept
    }
  }
}
