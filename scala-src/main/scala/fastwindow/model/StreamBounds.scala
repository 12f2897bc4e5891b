package fastwindow.model

/**
 * What a function needs to produce row i's result without the rest of its partition: the next
 * `lookahead` rows (or, with `waitsForPeers`, the rest of row i's peer group), and no row before
 * `i - history`. Functions with such bounds are evaluated while rows stream through; the others
 * (whole-partition frames, UNBOUNDED FOLLOWING, partition sizes, IGNORE NULLS lookups) need their
 * partition buffered.
 */
final case class StreamBounds(lookahead: Int, history: Int, waitsForPeers: Boolean) {
  def union(o: StreamBounds): StreamBounds = StreamBounds(
    math.max(lookahead, o.lookahead), math.max(history, o.history),
    waitsForPeers || o.waitsForPeers)
}

object StreamBounds {

  /** The result is known as soon as the row arrives and reads no earlier row. */
  val Immediate: StreamBounds = StreamBounds(0, 0, waitsForPeers = false)

  /** Rows `i + lower .. i + upper` (clamped to what an Int can count). */
  def ofOffsets(lower: Long, upper: Long): StreamBounds = StreamBounds(
    math.min(math.max(upper, 0L), Int.MaxValue.toLong).toInt,
    math.min(math.max(-lower, 0L), Int.MaxValue.toLong).toInt,
    waitsForPeers = false)
}
