package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.expressions.UnsafeRow

import fastwindow.exec.shared.IntegralOrderKey

/** Follows the rows of one range as a map task offers them: one comparison of longs per row. */
final class KeyRunTracker(key: IntegralOrderKey) {
  private var rows = 0L
  private var ordered = true
  private var strict = true
  private var firstNull = false
  private var first = 0L
  private var lastNull = false
  private var last = 0L

  def offer(row: UnsafeRow): Unit = if (ordered) {
    val isNull = key.isNull(row)
    val value = if (isNull) 0L else key.value(row)
    if (rows == 0) {
      firstNull = isNull
      first = value
    } else {
      val c = key.compare(lastNull, last, isNull, value)
      if (c > 0) ordered = false else if (c == 0) strict = false
    }
    lastNull = isNull
    last = value
    rows += 1
  }

  /** Whether the rows so far came in order (with no two equal keys, when `strict`). */
  def inOrder(strict: Boolean): Boolean = ordered && (this.strict || !strict)

  def result: KeyRun =
    if (!ordered) KeyRun.Unordered else KeyRun(ordered, strict, firstNull, first, lastNull, last)
}
