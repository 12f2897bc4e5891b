package fastwindow.frames

import java.math.{BigDecimal => JBigDecimal}

/**
 * The sum of a frame's distinct values, kept up to date as rows enter and leave the frame.
 *
 * It follows the ids a [[DistinctCounts]] holds as they become present (their count rises from
 * zero) and absent again, so a frame's distinct sum costs O(1) (exact sums) or O(log m) (floating
 * sums) per row entering or leaving the frame, whatever its width.
 * Each id's value is set once per partition.
 */
sealed trait DistinctSums {

  /** Forgets every value; ids `0 until m` follow. */
  def reset(m: Int): Unit

  /** Sets the value of `id`, absent for now. */
  def define(id: Int, value: Any): Unit
  def present(id: Int): Unit
  def absent(id: Int): Unit

  /** The sum of the present values, as Spark holds it in its aggregate's buffer. */
  def total: Any

  /** Whether the values' sums in any order give Spark's, errors included (see [[OfLongs]]). */
  def orderFree: Boolean = true
  def bytes: Long
}

object DistinctSums {

  /**
   * bigint sums. Under ANSI or TRY addition Spark fails (or gives null) when a partial sum
   * overflows, which depends on its set's order, so the sums are order-free only while the
   * values' absolute sum fits (then no partial sum can overflow). That is asked whatever the
   * addition (how a line's Sum declares it differs), so legacy sums of such values go to Spark
   * too.
   */
  final class OfLongs extends DistinctSums {
    private var values = new Array[Long](16)
    private var sum = 0L

    /** The sum of the values' magnitudes so far, Long.MaxValue once it does not fit. */
    private var magnitudes = 0L
    override def reset(m: Int): Unit = {
      if (values.length < m) values = new Array[Long](math.max(m, values.length * 2))
      sum = 0L
      magnitudes = 0L
    }
    override def define(id: Int, value: Any): Unit = {
      val v = value.asInstanceOf[Number].longValue
      values(id) = v
      magnitudes =
        if (v == Long.MinValue || magnitudes > Long.MaxValue - math.abs(v)) Long.MaxValue
        else magnitudes + math.abs(v)
    }
    override def orderFree: Boolean = magnitudes < Long.MaxValue
    override def present(id: Int): Unit = sum += values(id)
    override def absent(id: Int): Unit = sum -= values(id)
    override def total: Any = sum
    override def bytes: Long = 8L * values.length
  }

  /** Exact decimal sums; the caller makes sure they fit the sum's type. */
  final class OfDecimals(precision: Int, scale: Int) extends DistinctSums {
    private var values = new Array[JBigDecimal](16)
    private var sum = JBigDecimal.ZERO
    private var defined = 0
    override def reset(m: Int): Unit = {
      if (values.length < m) values = new Array[JBigDecimal](math.max(m, values.length * 2))
      java.util.Arrays.fill(values.asInstanceOf[Array[AnyRef]], null)
      sum = JBigDecimal.ZERO.setScale(scale)
      defined = 0
    }
    override def define(id: Int, value: Any): Unit = {
      values(id) = value.asInstanceOf[org.apache.spark.sql.types.Decimal].toJavaBigDecimal
      defined += 1
    }
    override def present(id: Int): Unit = sum = sum.add(values(id))
    override def absent(id: Int): Unit = sum = sum.subtract(values(id))
    override def total: Any = org.apache.spark.sql.types.Decimal(sum, precision, scale)
    override def bytes: Long = 8L * values.length + DecimalBytes * defined
  }

  /**
   * double sums over a tree of the ids' values (absent ids count 0.0): every sum is the same
   * tree of additions of the present values, so an id leaving the frame is exactly undone, NaN
   * and infinities included, whatever came before. Spark adds the set's values in its hash
   * order, so the two can differ in the last bits (the rounding of the additions), as two runs
   * of Spark on differently partitioned data can.
   */
  final class OfDoubles extends DistinctSums {
    private var values = new Array[Double](16)
    private var leaves = 1
    private var tree = new Array[Double](2)
    override def reset(m: Int): Unit = {
      if (values.length < m) values = new Array[Double](math.max(m, values.length * 2))
      leaves = Integer.highestOneBit(math.max(m, 1) * 2 - 1)
      if (tree.length < 2 * leaves) tree = new Array[Double](2 * leaves)
      else java.util.Arrays.fill(tree, 0, 2 * leaves, 0.0)
    }
    override def define(id: Int, value: Any): Unit =
      values(id) = value.asInstanceOf[Number].doubleValue
    override def present(id: Int): Unit = set(id, values(id))
    override def absent(id: Int): Unit = set(id, 0.0)
    private def set(id: Int, v: Double): Unit = {
      var node = leaves + id
      tree(node) = v
      node >>= 1
      while (node >= 1) {
        tree(node) = tree(2 * node) + tree(2 * node + 1)
        node >>= 1
      }
    }
    override def total: Any = tree(1)
    override def bytes: Long = 8L * values.length + 8L * tree.length
  }

  /** A `java.math.BigDecimal` and its digits, besides the array's reference. */
  val DecimalBytes: Long = 64L
}
