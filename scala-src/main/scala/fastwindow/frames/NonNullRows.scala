package fastwindow.frames

import fastwindow.ops.ValueOps

/**
 * The positions of the rows whose value is not null, in row order, appended as rows are scanned
 * (each row once per partition). lead/lag IGNORE NULLS and nth_value IGNORE NULLS read it.
 */
final class NonNullRows {
  private var rows = new Array[Int](16)
  private var scanned = 0

  /** Non-null rows found so far. */
  var count = 0

  def reset(): Unit = {
    count = 0
    scanned = 0
  }

  /** Scans the rows up to `last` (inclusive) not scanned yet. */
  def scanTo(last: Int, values: ValueOps): Unit = while (scanned <= last) {
    if (!values.isNull(scanned)) {
      if (count == rows.length) rows = java.util.Arrays.copyOf(rows, count * 2)
      rows(count) = scanned
      count += 1
    }
    scanned += 1
  }

  /** The position of the k-th (0-based) non-null row. */
  def apply(k: Int): Int = rows(k)

  def bytes: Long = 4L * rows.length
}
