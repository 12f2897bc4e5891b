package fastwindow.exec.shared

/**
 * What one task's hash state (kept top-k rows, per-group aggregates) may hold: accounted to Spark's
 * memory manager through [[ColumnMemory]] and capped at `maxBytes` (0: no cap). Reservations grow
 * in steps of at least 1 MB, since asking per row would cost more than the rows.
 */
final class MemoryBudget(memory: Option[ColumnMemory], maxBytes: Long) {
  private var reservedBytes = 0L

  /** Whether `bytes` in all may be held; false when the cap or the memory manager refuses. */
  def fits(bytes: Long): Boolean =
    (maxBytes <= 0 || bytes <= maxBytes) && (bytes <= reservedBytes || {
      val wanted = bytes + math.max(MemoryBudget.MinReservation, bytes / 4)
      val granted = memory.forall(_.reserve(wanted))
      if (granted) reservedBytes = wanted
      granted
    })

  /** Returns every reservation. Idempotent. */
  def release(): Unit = {
    reservedBytes = 0
    memory.foreach(_.release())
  }
}

object MemoryBudget {
  private val MinReservation = 1L << 20
}
