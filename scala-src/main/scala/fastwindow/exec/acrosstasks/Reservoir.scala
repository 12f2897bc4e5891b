package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow

/**
 * A uniform random sample of at most `size` rows of those offered (seeded: the same rows give the
 * same sample), and how many there were. Li's Algorithm L: after the first `size` rows, it draws
 * how many rows to skip before the next one it keeps, so it draws random numbers only for the rows
 * it keeps (about size * log(rows / size) of them) and can skip rows it never looks at. Kept rows
 * are copied.
 */
final class Reservoir(size: Int, seed: Long) {
  private val kept = new Array[InternalRow](size)
  private val random = new java.util.Random(seed)
  private var seen = 0L
  // Once full: W of Algorithm L, and the index of the next row to keep.
  private var w = 0.0
  private var next = Long.MaxValue

  /** In (0, 1]: its logarithm is finite. */
  private def uniform(): Double = 1.0 - random.nextDouble()

  private def keep(row: InternalRow): Unit = {
    if (seen < size) {
      kept(seen.toInt) = row.copy()
      if (seen == size - 1) {
        w = math.exp(math.log(uniform()) / size)
        next = seen + 1 + skip()
      }
    } else {
      kept(random.nextInt(size)) = row.copy()
      w *= math.exp(math.log(uniform()) / size)
      next += 1 + skip()
    }
  }

  /** Rows to pass over before the next one kept (a geometric count; huge when W is tiny). */
  private def skip(): Long = {
    val s = math.floor(math.log(uniform()) / math.log(1 - w))
    if (s.isNaN || s >= Long.MaxValue / 2) Long.MaxValue / 2 else s.toLong
  }

  def offerRow(row: InternalRow): Unit = {
    if (seen < size || seen == next) keep(row)
    seen += 1
  }

  /** `n` rows, row i read by `rowAt(i)` only if it is kept. */
  def offerBatch(n: Int, rowAt: Int => InternalRow): Unit = {
    val base = seen
    val end = base + n
    while (seen < end && seen < size) {
      keep(rowAt((seen - base).toInt))
      seen += 1
    }
    while (next < end) { // keep moves `next` on
      seen = next
      keep(rowAt((next - base).toInt))
    }
    seen = end
  }

  def result: (Long, Array[InternalRow]) =
    (seen, if (seen < size) kept.take(seen.toInt) else kept)
}
