package fastwindow

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.fastwindow.SqlConfRegistration

import fastwindow.planning.{DistinctWindowAggregates, FastWindowStrategy, KeyAggregatesPlacement, SetSizeIntoWindow, SettingsCheck, TakeBackFromSpark}

/**
 * The entry point of fastwindow: a [[SparkSessionExtensions]] that injects
 * [[fastwindow.planning.FastWindowStrategy]], which plans every logical `Window` of SQL window
 * functions it supports on [[fastwindow.exec.window.FastWindowExec]] and leaves the rest to Spark's
 * `WindowExec`, logging why. Rules come with it: [[fastwindow.planning.SettingsCheck]] checks the
 * session's fastwindow keys once per query with a window,
 * [[fastwindow.planning.SetSizeIntoWindow]] lets the window count a frame's distinct values where
 * the query reads only the size of its `collect_set`, and [[fastwindow.planning.DistinctWindowAggregates]] accepts DISTINCT window
 * aggregates, which Spark rejects (an extension of Spark's SQL). A physical rule,
 * [[fastwindow.planning.KeyAggregatesPlacement]], runs a whole-partition window without shuffling
 * its rows where that pays.
 *
 * Enable it when the session is built, with the fastwindow jar on the classpath:
 *
 * Scala:
 * {{{
 *   val spark = SparkSession.builder()
 *     .config("spark.sql.extensions", "fastwindow.FastWindowExtensions")
 *     .getOrCreate()
 * }}}
 *
 * Python (the wheel ships the jar):
 * {{{
 *   import fastwindow
 *   spark = fastwindow.configure(SparkSession.builder).getOrCreate()
 *   # or, on a session that already exists:
 *   fastwindow.enable(spark)
 * }}}
 *
 * spark-submit / spark-defaults.conf:
 * {{{
 *   spark-submit --jars "$(python -m fastwindow jar)" \
 *     --conf spark.sql.extensions=fastwindow.FastWindowExtensions app.py
 * }}}
 *
 * SQL users can switch it off for a session with `SET spark.fastwindow.enabled=false`; every key
 * is documented in [[fastwindow.config.FastWindowConf]].
 */
class FastWindowExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    SqlConfRegistration.registerAll()
    extensions.injectPreCBORule(_ => SettingsCheck)
    extensions.injectPlannerStrategy(_ => FastWindowStrategy)
    extensions.injectPostHocResolutionRule(_ => DistinctWindowAggregates)
    extensions.injectOptimizerRule(_ => SetSizeIntoWindow)
    // After Spark has placed the exchanges: with AQE, before its query stages are made; without,
    // before the columnar transitions.
    extensions.injectQueryStagePrepRule(_ => KeyAggregatesPlacement)
    extensions.injectColumnar(_ => KeyAggregatesPlacement.AsColumnarRule)
    // After every extension's columnar rules (DataFusion Comet's): windows Comet handed back.
    extensions.injectColumnar(_ => TakeBackFromSpark.AsColumnarRule)
  }
}
