package fastwindow.config

import fastwindow.config.ConfValues._

/**
 * The internal `spark.fastwindow.*` keys: limits that bound what fastwindow holds or computes
 * for one query, with defaults that suit every query measured, settable for tests and diagnosis.
 * Listed with the other keys in the docs' configuration table, but not by SQL `SET -v`.
 */
object FastWindowLimits extends ConfDeclarations {

  val ACROSS_TASKS_MAX_SUMMARY_ENTRIES: ConfEntry[Long] = entry(
    "spark.fastwindow.acrossTasks.maxSummaryEntries",
    default = 400000L,
    doc = "Most entries the map tasks' summaries of a window spread over ranges may hold on " +
      "the driver, an entry being a range's count and state or one row its neighbours read " +
      "(map tasks x ranges x (1 + rows read)); past it no map task summarises, and the ranges " +
      "are summarised from the shuffle's output, read once more.",
    parse = (key, raw) => positiveInt(key, raw).toLong,
    internal = true
  )

  val ACROSS_TASKS_MAX_SUMMARY_BYTES: ConfEntry[Long] = entry(
    "spark.fastwindow.acrossTasks.maxSummaryBytes",
    default = 64L << 20,
    doc = "Most bytes of rows the map tasks' summaries of a window spread over ranges may send " +
      "the driver, measured in each map task (its share: this over the map tasks); a map task " +
      "whose summaries hold more sends none, and the ranges are summarised from the shuffle's " +
      "output, read once more (one summary per range instead of one per map task and range).",
    parse = byteSize,
    internal = true
  )

  val ACROSS_TASKS_MAX_SKEWED_KEYS: ConfEntry[Int] = limit(
    "spark.fastwindow.acrossTasks.maxSkewedKeys",
    default = 64,
    doc = "Most PARTITION BY keys spark.fastwindow.acrossTasks.skewedKeys splits over ranges " +
      "(the largest are), fewer when their summaries would pass " +
      "spark.fastwindow.acrossTasks.maxSummaryEntries."
  )

  val ACROSS_TASKS_MAX_VALUE_RUNS: ConfEntry[Int] = limit(
    "spark.fastwindow.acrossTasks.maxValueRuns",
    default = 64,
    doc = "Most runs of rows in order (one per file of a table written in order) a map task " +
      "follows per range to count the range's distinct ORDER BY values (dense_rank across " +
      "tasks); past it the range's values are counted from the shuffle's output, read once " +
      "more."
  )

  val ACROSS_TASKS_HASHED_COLUMNS: ConfEntry[Int] = limit(
    "spark.fastwindow.acrossTasks.hashedColumns",
    default = 8,
    doc = "Most columns hashed to split the rows of a window without PARTITION BY and ORDER " +
      "BY over tasks: enough for an even spread of distinct rows, few enough to hash cheaply."
  )

  /** An internal key holding a positive count. */
  private def limit(key: String, default: Int, doc: String): ConfEntry[Int] =
    entry(key, default, doc, positiveInt, internal = true)

  /** These keys, in declaration (documentation) order. */
  def entries: Seq[ConfEntry[_]] = declaredEntries
}
