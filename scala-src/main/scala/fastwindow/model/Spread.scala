package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.Expression

import fastwindow.model.RangeEdge.Offset

/**
 * How a `FastWindow` operator's rows are spread over tasks. With PARTITION BY, by key (Spark's
 * clustered distribution: each window partition in one task). Without it, Spark moves every row
 * into one task; fastwindow instead splits the rows into ranges of the ORDER BY keys, one per task
 * (see `fastwindow.exec.acrosstasks`), when every function of the operator can be evaluated from
 * its range plus a summary of the ranges around it, and otherwise says why it keeps one task.
 *
 * Equal ORDER BY keys always fall into the same range (a range holds the keys between two bounds),
 * so a group of peers never crosses a range boundary.
 */
sealed trait Spread extends Serializable {

  /**
   * What explain shows about the spread (empty for the ordinary by-key spread); `skewedKeys`: of
   * a window with PARTITION BY, whose ranges are of its skewed keys' rows; `ordered`: with ORDER
   * BY (without it, the ranges are of a hash of the rows).
   */
  def describe(skewedKeys: Boolean, ordered: Boolean): String
}

object Spread {

  /** PARTITION BY keys: Spark's own distribution and order. */
  case object ByKey extends Spread {
    override def describe(skewedKeys: Boolean, ordered: Boolean): String = ""
  }

  /** No PARTITION BY, and at least one function that cannot run in ranges: one task. */
  final case class OneTask(reason: String) extends Spread {
    override def describe(skewedKeys: Boolean, ordered: Boolean): String = s"in one task: $reason"
  }

  /**
   * Spread over ranges of the ORDER BY keys, one task each; with PARTITION BY, the rows of each
   * key that holds a large share of them (a skewed key, found from a sample at run time) are, and
   * the other keys' rows go to their tasks whole.
   */
  sealed trait Ranges extends Spread {
    protected def ranges(skewedKeys: Boolean, ordered: Boolean): String =
      if (skewedKeys) "across tasks: skewed keys' rows split into ranges of the ORDER BY keys"
      else if (ordered) "across tasks: ranges of the ORDER BY keys"
      else "across tasks: the rows split by a hash of their columns"
  }

  /**
   * Functions that read only rows near the current one (lag/lead, ROWS frames bounded on both
   * sides, RANGE frames bounded by value offsets: `reach`): each task evaluates `before` rows of
   * the ranges before it (and those `reach` needs), its own range and `after` rows of the ranges
   * after it, and returns its own range's rows. Each range's peers are ordered by its other
   * columns (`fastwindow.exec.acrosstasks.RangeOrder`), so the rows a range hands on to its
   * neighbour are the ones its own task puts last (first), whatever order the shuffle delivers
   * peers in.
   */
  final case class Halos(before: Int, after: Int, nonNull: Seq[NonNullHalo] = Nil,
      reach: Option[ValueReach] = None)
    extends Ranges {
    override def describe(skewedKeys: Boolean, ordered: Boolean): String = {
      val counted = if (before == 0 && after == 0) None
      else Some(s"$before rows before and $after after each range")
      val reached = reach.map(r =>
        s"the rows its RANGE frames reach around each range (up to ${r.rows} at each end, " +
          "else the ranges run in one task)")
      val withValues = if (nonNull.isEmpty) None
      else {
        Some("the nearest rows " + nonNull.map(h =>
          s"${h.before} before and ${h.after} after with a value of ${h.input.sql}")
          .mkString(", ") + " each range")
      }
      val reads = (counted ++ reached ++ withValues).mkString(" and ")
      s"${ranges(skewedKeys, ordered)}, reading " +
        (if (reads.isEmpty) "no rows of the ranges around each range" else reads)
    }

    /**
     * How many of each range's last rows the ranges after it must have: the halo, and with
     * RANGE frames the one whose edge they compute.
     */
    def lastRows: Int = math.max(before, if (reach.isDefined) 1 else 0)

    /** How many of each range's first rows the ranges before it must have (see `lastRows`). */
    def firstRows: Int = math.max(after, if (reach.isDefined) 1 else 0)
  }

  /**
   * RANGE frames whose edges are value offsets from the current row's single ORDER BY key
   * (`frames`; neither edge UNBOUNDED): a range reads the rows before it whose key is at or after
   * the lower edge of its first row, and the rows after it up to the upper edge of its last row
   * (however many ranges away), from its neighbours' summaries, which keep up to `rows` of each
   * range's first and last rows (fewer where the map tasks' summaries would hold too many rows
   * in all). When a range needs more, or a key plus an offset wraps around, the ranges are
   * evaluated in one task at run time, as Spark would (`fastwindow.exec.acrosstasks.ReachedRows`).
   */
  final case class ValueReach(frames: Seq[FrameShape.SlidingRange], rows: Int) {
    def readsBefore: Boolean = frames.exists(_.lower.isInstanceOf[Offset])
    def readsAfter: Boolean = frames.exists(_.upper.isInstanceOf[Offset])
  }

  /**
   * lag/lead IGNORE NULLS of `input`: each task reads the `before` last rows before its range
   * whose `input` is not null, however far back (all NULLs between), and the `after` first ones
   * after it. Only the non-null rows of a neighbour count for such functions, so those rows
   * stand for every row before (after) the range. Beside rows counted or reached by value, the
   * task reads both, in the window's order: the others only reach the rows next to the range,
   * all of which it has.
   */
  final case class NonNullHalo(input: Expression, before: Int, after: Int)

  /**
   * Functions whose state runs from the first row (row_number, rank, running aggregates whose
   * partial states merge) or that read the window's size (percent_rank, cume_dist, ntile): each
   * task starts from the rows before its range (their count, and the merged states of their
   * aggregates) and knows the window's row count.
   */
  case object Seeded extends Ranges {
    override def describe(skewedKeys: Boolean, ordered: Boolean): String =
      if (ordered) s"${ranges(skewedKeys, ordered)}, each seeded with a summary of the other ranges"
      else s"${ranges(skewedKeys, ordered)}, each seeded with the aggregates of every row"
  }
}
