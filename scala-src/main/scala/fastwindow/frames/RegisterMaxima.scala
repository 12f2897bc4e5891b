package fastwindow.frames

/**
 * The registers of a HyperLogLog sketch over a multiset of (register, value) pairs that grows and
 * shrinks: each register holds the largest value any pair gives it, or 0. A sketch only takes
 * maxima, so it cannot forget a row; this keeps, per register, how many pairs give each value,
 * so a pair can leave (O(1) unless it was the register's only maximum, then O(values)).
 *
 * @param registers the number of registers
 * @param maxValue  the largest value a pair gives (a HyperLogLog++ register: 64 - p + 1)
 */
final class RegisterMaxima(registers: Int, maxValue: Int) {
  private val width = maxValue + 1
  private val counts = new Array[Int](registers * width)
  private val maxima = new Array[Byte](registers)

  /** The register's value: the largest value of its pairs, 0 if it has none. */
  def apply(register: Int): Int = maxima(register)

  /** Adds a pair; returns whether the register's value changed. */
  def add(register: Int, value: Int): Boolean = {
    counts(register * width + value) += 1
    if (value > maxima(register)) {
      maxima(register) = value.toByte
      true
    } else false
  }

  /** Removes a pair that was added; returns whether the register's value changed. */
  def remove(register: Int, value: Int): Boolean = {
    val base = register * width
    counts(base + value) -= 1
    if (value == maxima(register) && counts(base + value) == 0) {
      var v = value - 1
      while (v > 0 && counts(base + v) == 0) v -= 1
      maxima(register) = v.toByte
      true
    } else false
  }

  def bytes: Long = 4L * counts.length + maxima.length
}
