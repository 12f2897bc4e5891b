package fastwindow.functions

/** One row of the support table (`python -m fastwindow support`, the README). */
final case class SupportEntry(function: String, kind: String, frames: Seq[String], inputs: String)
