package fastwindow.model

/**
 * What a window function is to Apache DataFusion Comet's native window operator, when Comet runs
 * in the session: a fact of each function family (`FunctionSpec.besideComet`), read by
 * `fastwindow.planning.CometPlacement` to leave a window to Comet or plan it on fastwindow.
 *
 * The measurements behind each family's answer are in docs/performance.md ("Beside DataFusion Comet").
 */
sealed trait BesideComet extends Serializable

object BesideComet {

  /** Comet runs it natively, and faster than fastwindow behind Comet's columnar batches. */
  case object CometFaster extends BesideComet

  /**
   * Comet runs it natively, but fastwindow's algorithm wins even after the row conversion; with
   * `overOneTask`, a window without PARTITION BY too, against Comet's one native task on any
   * number of task slots (Comet's time grows with the frame, not with the rows).
   */
  final case class FastwindowFaster(why: String, overOneTask: Boolean = false) extends BesideComet

  /** Comet hands it (and its whole window) back to Spark's WindowExec. */
  final case class NotNative(why: String) extends BesideComet
}
