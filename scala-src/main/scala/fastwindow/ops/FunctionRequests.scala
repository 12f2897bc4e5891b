package fastwindow.ops

/** What one function needs generated (or interpreted) for it, in the order its kernel reads. */
final case class FunctionRequests(
    aggregates: Seq[AggregateRequest] = Nil,
    values: Seq[ValueRequest] = Nil,
    rangeEdges: Seq[RangeEdgeRequest] = Nil) {
  def ++(o: FunctionRequests): FunctionRequests =
    FunctionRequests(aggregates ++ o.aggregates, values ++ o.values, rangeEdges ++ o.rangeEdges)
}
