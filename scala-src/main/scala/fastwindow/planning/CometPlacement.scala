package fastwindow.planning

import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.internal.SQLConf

import fastwindow.config.{BesideCometMode, FastWindowConf}
import fastwindow.model.{BesideComet, FallbackReason, WindowPlan}

/**
 * Where a window runs when Apache DataFusion Comet is in the session: left to Comet's native
 * window operator, or planned on fastwindow.
 *
 * Comet's rules run after the planner: a window fastwindow does not plan becomes Spark's
 * WindowExec, which Comet then replaces with its native window when it runs every function of it.
 * fastwindow leaves a window to Comet when every function is one Comet runs natively and was
 * measured faster there ([[fastwindow.model.BesideComet]], a fact of each function family), or
 * when one such function needs each window partition held whole (percent_rank, a whole-partition
 * sum): fastwindow would hold them too, slower than Comet over large partitions, whatever its
 * other functions gain; and a
 * window without PARTITION BY when the session has fewer task slots than
 * `besideComet.minSlotsAcrossTasks` (Comet keeps it in one native task; fastwindow's ranges divide
 * it by the slots), unless one of its functions beats Comet's one task whatever the slots. It
 * takes the others, with the reason as the report's note; a window it left that Comet hands to
 * Spark after all is taken back after Comet's rules ([[TakeBackFromSpark]]).
 * Top-k per group limits are left to Comet's native group limit alike.
 */
object CometPlacement {

  /** The decision for one window. */
  sealed trait Decision
  final case class Leave(reason: FallbackReason) extends Decision
  final case class Take(why: String) extends Decision
  case object NoComet extends Decision

  /** Why fastwindow planned a window Comet could have run (the report's note). */
  val TakenFromComet: TreeNodeTag[String] = TreeNodeTag[String]("fastwindow.takenFromComet")

  val Plugin = "org.apache.spark.CometPlugin"
  val Extensions = "org.apache.comet.CometSparkSessionExtensions"

  /** Whether Comet replaces Spark's window operators in the session of `conf`. */
  def runsWindows(conf: SQLConf): Boolean =
    active(conf) && on(conf, "spark.comet.exec.window.enabled")

  /** Whether Comet replaces Spark's top-k per group operators (WindowGroupLimitExec). */
  def runsGroupLimits(conf: SQLConf): Boolean =
    active(conf) && on(conf, "spark.comet.exec.windowGroupLimit.enabled")

  /** Comet registered (its plugin or extensions), enabled, and with the memory it runs on. */
  private def active(conf: SQLConf): Boolean = {
    def listed(key: String, name: String) =
      conf.getConfString(key, "").split(",").map(_.trim).contains(name)
    (listed("spark.plugins", Plugin) || listed("spark.sql.extensions", Extensions)) &&
    on(conf, "spark.comet.enabled") && on(conf, "spark.comet.exec.enabled") &&
    (on(conf, "spark.memory.offHeap.enabled", default = false) ||
      on(conf, "spark.comet.exec.onHeap.enabled", default = false))
  }

  private def on(conf: SQLConf, key: String, default: Boolean = true): Boolean =
    conf.getConfString(key, default.toString).trim.equalsIgnoreCase("true")

  /**
   * Where `plan`, a window fastwindow supports, runs; `partitioned` when it has PARTITION BY,
   * `slots` the session's task slots.
   */
  def decide(plan: WindowPlan, partitioned: Boolean, conf: SQLConf, slots: => Int): Decision =
    if (!runsWindows(conf)) NoComet
    else {
      val mode = FastWindowConf.BESIDE_COMET.get(conf)
      val facts = plan.functions.map(_.besideComet)
      val notNative = facts.collectFirst { case BesideComet.NotNative(why) => why }
      val faster = facts.collectFirst { case BesideComet.FastwindowFaster(why, _) => why }
      val fasterOverOneTask =
        facts.collectFirst { case BesideComet.FastwindowFaster(why, true) => why }
      // Such a function makes fastwindow hold every window partition whole, as Comet does, but
      // slower over large ones: the gain of the others does not pay for it.
      val heldWhole = plan.functions.collectFirst {
        case f if f.besideComet == BesideComet.CometFaster && f.streamBounds.isEmpty => f.describe
      }
      val minSlots = FastWindowConf.BESIDE_COMET_MIN_SLOTS.get(conf)
      if (mode == BesideCometMode.TakeAll) Take(s"${FastWindowConf.BESIDE_COMET.key}=TAKE_ALL")
      else if (notNative.nonEmpty)
        Take(s"Comet would run it on Spark's WindowExec: ${notNative.get}")
      else if (mode == BesideCometMode.LeaveAll)
        leave(s"${FastWindowConf.BESIDE_COMET.key}=LEAVE_ALL")
      else if (!partitioned && fasterOverOneTask.nonEmpty) {
        Take(s"${fasterOverOneTask.get}, than Comet's one native task too")
      } else if (!partitioned && slots < minSlots) {
        leave(s"without PARTITION BY: Comet's one native task is faster on $slots task slots, " +
          s"fewer than ${FastWindowConf.BESIDE_COMET_MIN_SLOTS.key}=$minSlots")
      } else if (!partitioned) {
        Take(
          s"across tasks on $slots task slots (${FastWindowConf.BESIDE_COMET_MIN_SLOTS.key}=$minSlots)")
      } else if (faster.nonEmpty && heldWhole.nonEmpty) {
        leave(s"${heldWhole.get} holds each window partition whole, which Comet's native window " +
          "does faster over large partitions")
      } else if (faster.nonEmpty) Take(faster.get)
      else leave("Comet runs every function of it natively, measured faster than fastwindow")
    }

  /** Where a top-k per group limit runs: left to Comet's native group limit when it has one. */
  def decideGroupLimit(conf: SQLConf): Decision =
    if (!runsGroupLimits(conf)) NoComet
    else if (FastWindowConf.BESIDE_COMET.get(conf) == BesideCometMode.TakeAll) {
      Take(s"${FastWindowConf.BESIDE_COMET.key}=TAKE_ALL")
    } else leave("Comet runs the top-k per group natively, measured faster than fastwindow")

  private def leave(why: String): Leave = Leave(FallbackReason(FallbackReason.LeftToComet,
      s"left to Comet: $why (${FastWindowConf.BESIDE_COMET.key}=TAKE_ALL plans it on fastwindow)"))
}
