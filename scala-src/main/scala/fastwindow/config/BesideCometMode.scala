package fastwindow.config

/** How fastwindow shares a session's windows with Apache DataFusion Comet (`besideComet`). */
object BesideCometMode {

  /** Each window where it was measured faster: Comet's native window or fastwindow. */
  val Auto = "AUTO"

  /** Every window fastwindow supports on fastwindow, as without Comet. */
  val TakeAll = "TAKE_ALL"

  /** Every window Comet runs natively left to Comet. */
  val LeaveAll = "LEAVE_ALL"

  val all: Seq[String] = Seq(Auto, TakeAll, LeaveAll)
}
