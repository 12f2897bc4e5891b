package fastwindow.functions

/**
 * How an aggregate's result depends on the order in which its rows are added: the one fact that
 * decides where fastwindow may add them in another order than Spark's row-by-row loop over its
 * sorted input. Each rule of [[AggregateFamily.rules]] states it for its aggregate (it may depend
 * on the input type and the arithmetic mode); the operators read it from there:
 *
 *  - per key by hash, in the order rows arrive ([[OrderDependence.perKey]]);
 *  - sliding frames, whose two stacks merge partial states grouped differently from Spark's loop,
 *    and `spark.fastwindow.exactFloats`, which keeps Spark's order where it matters
 *    ([[OrderDependence.roundsByOrder]]);
 *  - partial states computed apart and merged in row order (ranges of one ORDER BY on several
 *    tasks): [[OrderDependence.merge]].
 */
sealed abstract class OrderDependence(val description: String) extends Serializable {

  /**
   * Whether the result is Spark's in any order of the rows, so a group's rows can be added as
   * they arrive, without sorting them: free of the order, or free of it but for integral sums
   * overflowing under ANSI or TRY, which the hash window watches per key
   * (`fastwindow.exec.hashwindow.IntegralSumGuard`).
   */
  def perKey: Boolean = this match {
    case OrderDependence.Free | OrderDependence.FreeWithinLong => true
    case OrderDependence.FreeUntilOverflow | OrderDependence.Positional | OrderDependence.Rounding =>
      false
  }

  /** Whether another grouping of the same rows may round differently (floating point). */
  def roundsByOrder: Boolean = this == OrderDependence.Rounding

  /** How two partial states, of rows before and of rows after, merge into the state of both. */
  def merge: OrderDependence.Merge = this match {
    case OrderDependence.Free => OrderDependence.Exact
    case OrderDependence.FreeWithinLong | OrderDependence.FreeUntilOverflow =>
      OrderDependence.ExactBelowOverflow
    case OrderDependence.Positional => OrderDependence.ExactInRowOrder
    case OrderDependence.Rounding => OrderDependence.WithinRounding
  }
}

object OrderDependence {

  /** The same result in every order of the rows (count, bit operations, min and max of types
   * whose equal values are equal bytes, wrapping integral sums, sums of decimals of up to 28
   * digits, which their 38-digit buffer holds exactly). */
  case object Free extends OrderDependence("free of the rows' order")

  /**
   * Integral sums under ANSI or TRY arithmetic: every order gives the same sum while the sums of
   * the positive and of the negative inputs fit in a long; beyond, the order decides whether and
   * where it overflows (an error, or null).
   */
  case object FreeWithinLong
    extends OrderDependence("free of the rows' order while its partial sums fit in a long")

  /**
   * Sums that check overflow (decimals of more than 28 digits, ANSI intervals): the order decides
   * where a partial sum overflows; frames whose sum of |x| comes near the limit are recomputed in
   * Spark's order ([[SlidingGuard]]).
   */
  case object FreeUntilOverflow
    extends OrderDependence("free of the rows' order unless a partial sum overflows")

  /**
   * The rows' positions decide the result: first and last, and ties between equal values of
   * different bytes (0.0 and -0.0, strings equal under a collation) in min, max, min_by and
   * max_by. Partial states merge exactly when merged in row order.
   */
  case object Positional extends OrderDependence("decided by which row comes first")

  /** Floating-point sums, averages and moments: merging partial states rounds differently from
   * Spark's row-by-row updates, within float rounding. */
  case object Rounding extends OrderDependence("rounded in the order the rows are added")

  /** How partial states merge. */
  sealed trait Merge

  /** Into exactly the state of all the rows. */
  case object Exact extends Merge

  /** Into exactly the state of all the rows unless a partial sum overflows, which a guard of the
   * sums' magnitudes must rule out ([[SlidingGuard]], the hash window's integral sum guard). */
  case object ExactBelowOverflow extends Merge

  /** Into exactly the state of all the rows when the earlier rows' state comes first. */
  case object ExactInRowOrder extends Merge

  /** Into the state of all the rows within float rounding. */
  case object WithinRounding extends Merge
}
