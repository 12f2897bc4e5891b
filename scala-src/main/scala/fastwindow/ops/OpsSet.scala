package fastwindow.ops

/**
 * Every expression-dependent part of one operator, for one task.
 *
 * Besides the aggregates ([[AggregateOps]]), those parts are: filling the columns from input rows
 * ([[ColumnExtractor]]), comparing rows' ORDER BY keys ([[PeerKeys]]), RANGE frame edges
 * ([[RangeEdgeOps]]), copying a value into the result row ([[ValueOps]]). Each has a generated
 * implementation (`fastwindow.codegen`) and an interpreted twin ([[InterpretedOps]]); the
 * algorithms that call them are written once.
 */
final class OpsSet(
    val extractor: ColumnExtractor,
    val peerKeys: PeerKeys,
    val functions: IndexedSeq[FunctionOps])
