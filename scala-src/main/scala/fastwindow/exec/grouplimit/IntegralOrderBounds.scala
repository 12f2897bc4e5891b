package fastwindow.exec.grouplimit

import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder, UnsafeRow}

import fastwindow.exec.shared.IntegralOrderKey

/**
 * Each top-k group's bound as a long, so most rows are refused by comparing two longs.
 *
 * The bound ([[fastwindow.frames.GroupTopK.boundRow]]) is kept in an array by group id, for an
 * ORDER BY of one integral column ([[IntegralOrderKey]]); the rows after their group's bound
 * are most of a top-k's rows. Without it each refusal
 * follows the group's object, its bound row and that row's bytes, cache misses that dominated a
 * top-k over 10^5 groups.
 */
final class IntegralOrderBounds private (val key: IntegralOrderKey, keepsTies: Boolean) {
  import IntegralOrderBounds._

  private var values = new Array[Long](16)
  private var states = new Array[Byte](16)

  /** Whether `row` comes after group `id`'s bound (or ties with it, when ties are not kept). */
  def refuses(id: Int, row: UnsafeRow): Boolean = id < states.length && states(id) != NoBound && {
    val c = key.compare(key.isNull(row), key.value(row), states(id) == NullBound, values(id))
    c > 0 || (c == 0 && !keepsTies)
  }

  /** Records group `id`'s bound row (null: none yet). */
  def update(id: Int, bound: UnsafeRow): Unit = if (bound != null) {
    if (id >= states.length) {
      val size = math.max(id + 1, states.length * 2)
      values = java.util.Arrays.copyOf(values, size)
      states = java.util.Arrays.copyOf(states, size)
    }
    if (key.isNull(bound)) states(id) = NullBound
    else {
      states(id) = ValueBound
      values(id) = key.value(bound)
    }
  }

  /** Forgets every bound. */
  def clear(): Unit = java.util.Arrays.fill(states, NoBound)
}

object IntegralOrderBounds {
  private val NoBound: Byte = 0
  private val NullBound: Byte = 1
  private val ValueBound: Byte = 2

  /** Bounds for `orderSpec` when it is one integral column of `schema`, else None. */
  def apply(orderSpec: Seq[SortOrder], schema: Seq[Attribute], keepsTies: Boolean)
      : Option[IntegralOrderBounds] =
    IntegralOrderKey(orderSpec, schema).map(new IntegralOrderBounds(_, keepsTies))
}
