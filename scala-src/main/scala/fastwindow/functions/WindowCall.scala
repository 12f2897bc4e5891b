package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Expression, SortOrder, SpecifiedWindowFrame}

/**
 * A window function for a family to plan, with what planning reads besides it: the frame of its
 * window expression, its window's ORDER BY and the slot of its result.
 */
final case class WindowCall(
    function: Expression,
    frame: SpecifiedWindowFrame,
    orderSpec: Seq[SortOrder],
    ordinal: Int)
