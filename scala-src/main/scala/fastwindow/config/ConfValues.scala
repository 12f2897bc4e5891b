package fastwindow.config

import java.util.Locale

import org.apache.spark.network.util.JavaUtils

/**
 * Parsers of configuration values: each gets the key (for its error) and the raw value, and
 * returns the typed value or throws an error naming the key and what it accepts.
 */
private[config] object ConfValues {

  def bool(key: String, raw: String): Boolean = raw.toLowerCase(Locale.ROOT) match {
    case "true" => true
    case "false" => false
    case other => throw badValue(key, other, "true or false")
  }

  def oneOf(allowed: Seq[String])(key: String, raw: String): String = {
    val upper = raw.toUpperCase(Locale.ROOT)
    if (allowed.contains(upper)) upper else throw badValue(key, raw, allowed.mkString(", "))
  }

  def badValue(key: String, value: String, expected: String) =
    new IllegalArgumentException(
      s"Invalid value '$value' for $key: expected $expected. Every fastwindow key and what it " +
        "accepts: SQL `SET -v`, or `python -m fastwindow config --markdown`.")

  def positiveInt(key: String, raw: String): Int =
    scala.util.Try(raw.toInt).toOption.filter(_ > 0)
      .getOrElse(throw badValue(key, raw, "a positive integer"))

  def nonNegativeInt(key: String, raw: String): Int =
    scala.util.Try(raw.toInt).toOption.filter(_ >= 0)
      .getOrElse(throw badValue(key, raw, "an integer, 0 or more"))

  def byteSize(key: String, raw: String): Long = {
    val bytes =
      try JavaUtils.byteStringAsBytes(raw)
      catch { case _: NumberFormatException => -1L }
    if (bytes >= 0) bytes else throw badValue(key, raw, "a size such as 0, 64m or 2g")
  }
}
