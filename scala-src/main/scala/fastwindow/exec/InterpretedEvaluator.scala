package fastwindow.exec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.types.PhysicalDataType

import fastwindow.buffer.Column
import fastwindow.kernels.{AggregateKernel, Kernel, OffsetKernel, PeerGroups, RankingKernel}
import fastwindow.planning.{AggregateSpec, OffsetSpec, RankingSpec}

/**
 * The interpreted twin of the generated evaluator: the same columns and kernels, with input
 * expressions evaluated by `Expression.eval` and each function run by a [[Kernel]] object.
 * Results are identical to the generated path by contract (and tests run the suite on both).
 */
final class InterpretedEvaluator(layout: EvaluatorLayout) extends WindowEvaluator {

  private val columns: Array[Column] = layout.columns.map(c => Column(c.dataType)).toArray
  private val extractors = layout.columns.map(_.bound).toArray
  private val peers = new PeerGroups
  private val peerKeys: Array[(Column, Ordering[Any])] = layout.peerKeyColumns.map { c =>
    (columns(c.index), PhysicalDataType.ordering(c.dataType))
  }.toArray

  private val kernels: Array[Kernel] = layout.plan.functions.map {
    case r: RankingSpec => new RankingKernel.Interpreted(r, peers)
    case o: OffsetSpec =>
      val (input, default) = layout.offsetColumns(o)
      val defaultValue = default match {
        case Some(c) => OffsetKernel.ColumnDefault(columns(c.index))
        case None => OffsetKernel.ConstantDefault(o.default.map(_.eval()).orNull)
      }
      new OffsetKernel.Interpreted(o, columns(input.index), defaultValue)
    case a: AggregateSpec =>
      new AggregateKernel.Interpreted(
        a, layout.columnarAggregate(a), layout.columnAttributes, columns, peers)
  }.toArray

  private val needsPeers = layout.plan.needsPeers
  private var capacity = Column.InitialCapacity
  private var rows = 0

  override def numRows: Int = rows

  override def startPartition(): Unit = rows = 0

  override def ingest(row: InternalRow): Unit = {
    val r = rows
    if (r == capacity) {
      capacity = Column.grownCapacity(capacity, r + 1)
      columns.foreach(_.grow(capacity, r))
      if (needsPeers) peers.peerBreak = java.util.Arrays.copyOf(peers.peerBreak, capacity)
    }
    var k = 0
    while (k < columns.length) {
      columns(k).put(r, extractors(k).eval(row))
      k += 1
    }
    if (needsPeers) peers.peerBreak(r) = r == 0 || !samePeerKeys(r, r - 1)
    rows = r + 1
  }

  /** Rows are peers when every ORDER BY key compares equal (nulls equal nulls), as in Spark. */
  private def samePeerKeys(a: Int, b: Int): Boolean = peerKeys.forall { case (column, ordering) =>
    val aNull = column.isNull(a)
    aNull == column.isNull(b) && (aNull || ordering.compare(column.get(a), column.get(b)) == 0)
  }

  override def finishPartition(): Unit = kernels.foreach(_.finishPartition(rows))

  override def write(i: Int, out: InternalRow): Unit = {
    if (needsPeers) peers.advance(i, rows)
    var k = 0
    while (k < kernels.length) {
      kernels(k).write(i, out)
      k += 1
    }
  }
}
