package fastwindow.ops

import fastwindow.columns.ColumnLayout

/** Everything expression-dependent one operator runs, as requested by its functions. */
final case class OpsPlan(layout: ColumnLayout, functions: Seq[FunctionRequests])
