package org.apache.spark.sql.fastwindow

import org.apache.spark.sql.internal.SQLConf

import fastwindow.config.FastWindowConf

/**
 * Registers every `spark.fastwindow.*` key with Spark's SQL conf, so a value is checked when set.
 *
 * Keys are registered as Spark's own are, and checked wherever a value is set (`spark.conf.set`,
 * SQL `SET`, the builder's and spark-submit's `--conf`, through Spark Connect too): a bad value is
 * refused at once by fastwindow's own parser, whose error names the key and the values it accepts,
 * and never reaches a query. Registered keys are also listed, with their docs, by `SET -v`, but for
 * the internal limits (`fastwindow.config.FastWindowLimits`), as Spark's internal keys are not.
 *
 * Spark's registry is per JVM and refuses a key twice, so each key is registered once, by the
 * first session that installs fastwindow (the extension or `FastWindow.install`).
 */
object SqlConfRegistration {

  def registerAll(): Unit = synchronized {
    FastWindowConf.entries.filterNot(e => SQLConf.containsConfigKey(e.key)).foreach { e =>
      val built = SQLConf.buildConf(e.key).doc(e.doc).version("fastwindow")
      (if (e.internal) built.internal() else built)
        .stringConf
        // `check` throws fastwindow's own error, so Spark's generic message below is not shown.
        .checkValue(raw => { e.check(raw); true }, s"See the documentation of ${e.key}.")
        .createWithDefaultString(e.defaultString)
    }
  }
}
