package fastwindow

import java.util.Properties

import org.apache.spark.sql.{Dataset, SparkSession}
import org.apache.spark.sql.fastwindow.SqlConfRegistration
import org.apache.spark.sql.fastwindow.shims.ClassicShim

import fastwindow.config.FastWindowConf
import fastwindow.explain.WindowReport
import fastwindow.planning.{FastWindowStrategy, SetSizeIntoWindow, SettingsCheck}

/**
 * The JVM-side API used by the Python package (through py4j) and by Scala users who cannot set
 * `spark.sql.extensions` before their session exists.
 *
 * Every method is a plain static call with Java-friendly types, so py4j can reach it as
 * `jvm.fastwindow.FastWindow.method(...)`.
 */
object FastWindow {

  private lazy val buildInfo: Properties = {
    val props = new Properties()
    val in = getClass.getResourceAsStream("/fastwindow-build.properties")
    if (in != null)
      try props.load(in)
      finally in.close()
    props
  }

  /** fastwindow's own version. */
  def version: String = buildInfo.getProperty("version", "unknown")

  /** The Spark version the jar was compiled against (internals are not binary-stable). */
  def builtForSpark: String = buildInfo.getProperty("spark.version", "unknown")

  /** The Scala binary version the jar was compiled for. */
  def builtForScala: String = buildInfo.getProperty("scala.binary.version", "unknown")

  /**
   * Installs the planner strategy on a session that was created without the extension, by adding
   * it to the session's experimental strategies (and `SetSizeIntoWindow` to its experimental
   * optimizations). Idempotent; returns true when it was added now. A live session's analyzer
   * cannot take rules any more, so `count(DISTINCT ...) OVER` (`DistinctWindowAggregates`) needs
   * the extension set when the session is built.
   */
  def install(session: SparkSession): Boolean = synchronized {
    FastWindowConf.validate(session.conf.getAll.toMap)
    SqlConfRegistration.registerAll()
    if (isInstalled(session)) {
      false
    } else {
      val experimental = session.experimental
      experimental.extraStrategies = experimental.extraStrategies :+ FastWindowStrategy
      experimental.extraOptimizations =
        experimental.extraOptimizations :+ SettingsCheck :+ SetSizeIntoWindow
      true
    }
  }

  /** Whether the strategy is part of this session's planner, by either route. */
  def isInstalled(session: SparkSession): Boolean = {
    val name = FastWindowStrategy.getClass.getName
    ClassicShim.sessionState(session).exists(
      _.planner.strategies.exists(_.getClass.getName == name))
  }

  /**
   * JSON describing every window operator of `df`'s physical plan: who runs it
   * (`FastWindow` or Spark's `Window`), its window expressions and, for a Spark-run node, why
   * fastwindow did not take it. The Python `fastwindow.explain(df)` renders this.
   */
  def explainJson(df: Dataset[_]): String = WindowReport.toJson(WindowReport.of(df))

  /** Human-readable form of [[explainJson]]. */
  def explainString(df: Dataset[_]): String = WindowReport.render(WindowReport.of(df))

  /** JSON list of what fastwindow runs (functions, frames, types), generated from the code. */
  def supportJson: String = WindowReport.supportJson

  /** Markdown table of every `spark.fastwindow.*` key. */
  def configMarkdown: String = FastWindowConf.markdownTable
}
