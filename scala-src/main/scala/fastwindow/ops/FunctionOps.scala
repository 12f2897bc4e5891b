package fastwindow.ops

/** The instances of one function's [[FunctionRequests]], in the same order. */
final class FunctionOps(
    val aggregates: IndexedSeq[AggregateOps],
    val values: IndexedSeq[ValueOps],
    val rangeEdges: IndexedSeq[RangeEdgeOps])

/** Constructors generated Java code can call with arrays. */
object FunctionOps {
  def of(
      aggregates: Array[AggregateOps],
      values: Array[ValueOps],
      rangeEdges: Array[RangeEdgeOps]): FunctionOps =
    new FunctionOps(aggregates.toIndexedSeq, values.toIndexedSeq, rangeEdges.toIndexedSeq)

  def indexed(functions: Array[FunctionOps]): IndexedSeq[FunctionOps] = functions.toIndexedSeq
}
