package fastwindow.model

/**
 * Why fastwindow leaves a window node to Spark: a stable `id` (what tools and tests match on;
 * see the companion for the ids) and a message naming the function, the frame, the type and,
 * where one exists, the setting that would change the outcome.
 */
final case class FallbackReason(id: String, message: String) {
  override def toString: String = message
}

object FallbackReason {

  /** `spark.fastwindow.enabled` is false in the session. */
  val Disabled = "disabled"

  /** The planner strategy is not installed (no extension, no `enable`). */
  val NotInstalled = "not-installed"

  /** A Python UDF window: Spark's own Python operator runs it. */
  val PythonUdf = "python-udf"

  /** A window function or aggregate fastwindow has no family for. */
  val UnsupportedFunction = "unsupported-function"

  /** A supported function over an input type it does not run. */
  val UnsupportedType = "unsupported-type"

  /** A supported function over a frame it does not run. */
  val UnsupportedFrame = "unsupported-frame"

  /** An argument that must be constant, or within a range, is not. */
  val UnsupportedArgument = "unsupported-argument"

  /** Peers (ties) of an ORDER BY key whose type fastwindow cannot compare. */
  val UnsupportedOrderKey = "unsupported-order-key"

  /** A window expression that is not a function of window functions alone. */
  val UnsupportedExpression = "unsupported-expression"

  /** DataFusion Comet's native window runs it, measured faster (`spark.fastwindow.besideComet`). */
  val LeftToComet = "left-to-comet"
}
