package fastwindow.config

import org.apache.spark.sql.internal.SQLConf

/**
 * One documented `spark.fastwindow.*` key with a typed parser, which gets the key (for its error
 * message) and the raw value. An internal key is a limit with no reason to change but tests and
 * diagnosis: documented, but not listed by SQL `SET -v`, as Spark's internal keys are not.
 */
final class ConfEntry[T] private[config] (
    val key: String,
    val default: T,
    val doc: String,
    parse: (String, String) => T,
    val internal: Boolean) {

  /** The value in `conf`, or the default when unset. */
  def get(conf: SQLConf = SQLConf.get): T = {
    val raw = conf.getConfString(key, null)
    if (raw == null) default else parse(key, raw.trim)
  }

  /** Checks a raw value (throws the same error `get` would). */
  def check(raw: String): Unit = parse(key, raw.trim)
  def defaultString: String = default.toString
}
