package fastwindow.explain

import org.apache.spark.sql.Dataset
import org.apache.spark.sql.catalyst
  .expressions.{Expression, NamedExpression, SortOrder, SpecifiedWindowFrame, WindowExpression}
import org.apache.spark.sql.catalyst.plans.logical.{Window, WindowGroupLimit}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.window.{WindowExec, WindowExecBase, WindowGroupLimitExec, WindowGroupLimitMode}
import org.apache.spark.sql.fastwindow.shims.ClassicShim

import fastwindow.config.FastWindowConf
import fastwindow.exec.grouplimit.HashGroupLimitExec
import fastwindow.exec.grouporder.GroupOrderExec
import fastwindow.exec.hashwindow.{HashWindowAggregateExec, KeyAggregatesWindowExec}
import fastwindow.exec.window.FastWindowExec
import fastwindow.functions.{FramePlanning, WindowSupport}
import fastwindow.model.FallbackReason
import fastwindow.planning.{CometPlacement, FastWindowStrategy, GroupLimitSupport, HashWindowSupport}

/**
 * Who runs one window operator of a physical plan and, when Spark does, why fastwindow did not.
 *
 * This answers a user's "did my query use fastwindow, and if not why": every reason, each with a
 * stable id. The top-k per group operators Spark plans below a window filtered by a rank are
 * reported too. Once the plan has run, `metrics` holds the operator's non-zero SQL metrics
 * (rows, partitions streamed or buffered, spill, peak memory); before, and for Spark's operator,
 * it is empty.
 */
final case class WindowReport(
    operator: String,
    fastwindow: Boolean,
    windowExpressions: Seq[String],
    partitionSpec: Seq[String],
    orderSpec: Seq[String],
    reasons: Seq[FallbackReason],
    metrics: Seq[(String, Long)] = Nil,
    note: Option[String] = None) {

  /** All reasons as one sentence (None when fastwindow runs the operator). */
  def reason: Option[String] =
    if (reasons.isEmpty) None else Some(reasons.map(_.message).mkString("; "))
}

object WindowReport extends AdaptiveSparkPlanHelper {

  /**
   * A window expression's SQL with its frames written as users write them (Spark's own `sql`
   * prints `2 PRECEDING` as `-2 FOLLOWING`).
   */
  def userSql(e: NamedExpression): String = {
    val frames = e.collect { case w: WindowExpression => w.windowSpec.frameSpecification }
      .collect { case f: SpecifiedWindowFrame => f }
    frames.foldLeft(e.sql)((sql, f) => sql.replace(f.sql, FramePlanning.sql(f)))
  }

  val NotInstalled: FallbackReason = FallbackReason(
    FallbackReason.NotInstalled,
    "fastwindow's planner strategy is not installed on this session (start it with " +
      "spark.sql.extensions=fastwindow.FastWindowExtensions, or call fastwindow.enable(spark))"
  )

  val PythonUdf: FallbackReason = FallbackReason(FallbackReason.PythonUdf,
    "Python UDF window functions run on Spark's Python window operator")

  def of(df: Dataset[_]): Seq[WindowReport] = ClassicShim.executedPlan(df).map(of).getOrElse(
    throw new IllegalArgumentException(
      s"fastwindow can only explain classic (non-Connect) Datasets, got ${df.getClass}"))

  /** Every window operator in `plan`, inside adaptive query stages and subqueries too. */
  def of(plan: SparkPlan): Seq[WindowReport] = collectWithSubqueries(plan) {
    case f: FastWindowExec => takenFromComet(f, fastWindow(f))
    case h: HashWindowAggregateExec => takenFromComet(h,
        WindowReport(h.nodeName, fastwindow = true, h.windowExpression.map(userSql),
          h.partitionSpec.map(_.sql), Nil, Nil, metricsOf(h), Some(NoSortByHash)))
    case k: KeyAggregatesWindowExec =>
      WindowReport(
        k.nodeName,
        fastwindow = true,
        k.windowExpression.map(userSql),
        k.partitionSpec.map(_.sql),
        Nil,
        Nil,
        metricsOf(k),
        Some(if (k.partitionSpec.isEmpty) AllRowsNotShuffled else RowsNotShuffled)
      )
    case g: HashGroupLimitExec =>
      groupLimit(g.nodeName, g.rankLikeFunction, g.limit, g.mode, g.partitionSpec, g.orderSpec,
        Nil).copy(metrics = metricsOf(g), note = Some(NoSort))
    case g: WindowGroupLimitExec =>
      val reasons = g.logicalLink.flatMap(_.getTagValue(FastWindowStrategy.FallbackReasons))
        .getOrElse(GroupLimitSupport.check(g.partitionSpec, g.rankLikeFunction) match {
          case Left(reasons) => reasons
          case Right(_) => Seq(NotInstalled)
        })
      groupLimit(g.nodeName, g.rankLikeFunction, g.limit, g.mode, g.partitionSpec, g.orderSpec,
        reasons)
    case c if c.nodeName.startsWith("CometWindow") => comet(c)
    case w: WindowExec => report(w, fallbackReasons(w))
    case w: WindowExecBase if w.nodeName.contains("Python") || w.nodeName.contains("Pandas") =>
      report(w, Seq(PythonUdf))
    case w: WindowExecBase =>
      report(w,
        Seq(FallbackReason(FallbackReason.UnsupportedFunction,
            s"${w.nodeName} is a window operator fastwindow does not plan")))
  }

  private def fastWindow(f: FastWindowExec): WindowReport = {
    val spread = Some(f.spread.describe(f.partitionSpec.nonEmpty, f.orderSpec.nonEmpty))
      .filter(_.nonEmpty)
    f.child match {
      // The order made below it by hash: its metrics (sorted tasks, memory) count as the window's.
      case g: GroupOrderExec if g.groupsOwnRows =>
        report(f, Nil).copy(metrics = metricsOf(f) ++ metricsOf(g),
          note = Some((spread.toSeq :+ GroupedNoSort).mkString("; ")))
      case _ => report(f, Nil).copy(metrics = metricsOf(f),
          note = sortedNotByHash(f).orElse(spread))
    }
  }

  /** `r` with why fastwindow planned a window DataFusion Comet could run, if it was that. */
  private def takenFromComet(plan: SparkPlan, r: WindowReport): WindowReport =
    plan.logicalLink.flatMap(_.getTagValue(CometPlacement.TakenFromComet)) match {
      case Some(why) =>
        r.copy(note = Some((s"taken from Comet: $why" +: r.note.toSeq).mkString("; ")))
      case None => r
    }

  /**
   * A window or top-k operator of DataFusion Comet (`CometWindowExec`,
   * `CometWindowGroupLimitExec`), read through the logical node it was planned from: why fastwindow
   * left it (to Comet, or for a reason of its own).
   */
  private def comet(plan: SparkPlan): WindowReport = {
    val reasons = plan.logicalLink.flatMap(_.getTagValue(FastWindowStrategy.FallbackReasons))
      .getOrElse(Seq(NotInstalled))
    plan.logicalLink match {
      case Some(w: Window) => WindowReport(plan.nodeName, fastwindow = false,
          w.windowExpressions.map(userSql), w.partitionSpec.map(_.sql), w.orderSpec.map(_.sql),
          reasons)
      case Some(l: WindowGroupLimit) => WindowReport(plan.nodeName, fastwindow = false,
          Seq(s"${l.rankLikeFunction.sql} <= ${l.limit}"), l.partitionSpec.map(_.sql),
          l.orderSpec.map(_.sql), reasons)
      case _ => WindowReport(plan.nodeName, fastwindow = false, Nil, Nil, Nil, reasons)
    }
  }

  /** How a window of whole-partition aggregates runs without shuffling its rows, for the report. */
  val RowsNotShuffled: String = "rows not shuffled: each key's aggregates computed where the " +
    "rows are, merged on the driver and joined back to the rows from a broadcast (the rows " +
    "shuffled by key, by hash, when there are too many keys: numShuffledFallbacks)"

  /** How a window of aggregates over all rows (`OVER ()`) runs on every task, for the report. */
  val AllRowsNotShuffled: String = "across tasks: rows not shuffled into one task; each task " +
    "aggregates its rows where they are, the driver merges the tasks' states and the results " +
    "are joined back to the rows from a broadcast (the rows moved into one task when a sum " +
    "may overflow: numShuffledFallbacks)"

  /** Why a FastGroupLimit needs no sort, for the report. */
  val NoSort: String = "no sort below it: each group's top rows are kept in a hash map of " +
    "bounded buffers, O(n log k)"

  /** Why a hash FastWindow needs no sort, for the report. */
  val NoSortByHash: String = "no sort below it: whole-partition aggregates per key in a hash " +
    "map, two passes over the task's rows"

  /**
   * Why a window of no ORDER BY is sorted below it, not run per key by hash (None for windows with
   * ORDER BY, which need the order, or no PARTITION BY, which need no sort).
   */
  private def sortedNotByHash(f: FastWindowExec): Option[String] =
    if (f.orderSpec.nonEmpty || f.partitionSpec.isEmpty) None
    else {
      val why = HashWindowSupport.whyNot(f.windowExpression, f.partitionSpec, f.orderSpec,
        FastWindowConf.EXACT_FLOATS.get())
      Some(SortedNotByHash + (if (why.isEmpty) s"${FastWindowConf.HASH_WINDOW_ENABLED.key} is " +
                                "false"
                              else why.mkString("; ")))
    }

  /** The start of the report's note on a window of no ORDER BY that is sorted below it. */
  val SortedNotByHash: String = "sorted below it, not per key by hash: "

  /** Why a FastWindow with `spark.fastwindow.groupSort.enabled` needs no sort below it. */
  val GroupedNoSort: String = "no sort below it: the task's rows grouped by key by hash, each " +
    "window partition sorted alone"

  private def metricsOf(plan: SparkPlan): Seq[(String, Long)] =
    plan.metrics.toSeq.sortBy(_._1).collect {
      case (name, metric) if !metric.isZero => name -> metric.value
    }

  private def groupLimit(operator: String, function: Expression, limit: Int,
      mode: WindowGroupLimitMode, partitionSpec: Seq[Expression], orderSpec: Seq[SortOrder],
      reasons: Seq[FallbackReason]) = WindowReport(
    operator,
    reasons.isEmpty,
    Seq(s"${function.sql} <= $limit ($mode)"),
    partitionSpec.map(_.sql),
    orderSpec.map(_.sql),
    reasons)

  private def report(w: WindowExecBase, reasons: Seq[FallbackReason]) = WindowReport(
    w.nodeName,
    reasons.isEmpty,
    w.windowExpression.map(userSql),
    w.partitionSpec.map(_.sql),
    w.orderSpec.map(_.sql),
    reasons)

  /** The reasons recorded at planning time, or the support check's verdict if none were. */
  private def fallbackReasons(w: WindowExec): Seq[FallbackReason] =
    w.logicalLink.flatMap(_.getTagValue(FastWindowStrategy.FallbackReasons)).getOrElse {
      WindowSupport.check(w.windowExpression, w.orderSpec) match {
        case Left(reasons) => reasons
        case Right(_) => Seq(NotInstalled)
      }
    }

  def render(reports: Seq[WindowReport]): String =
    if (reports.isEmpty) "no window operators in this plan"
    else reports.map { r =>
      val who = if (r.fastwindow) "runs on fastwindow" else "runs on Spark"
      val head = s"${r.operator} [${r.windowExpressions.mkString(", ")}] $who" +
        r.note.map(n => s"\n  $n").getOrElse("")
      val reasons = r.reasons.map(reason => s"\n  reason (${reason.id}): ${reason.message}")
      val metrics = if (r.metrics.isEmpty) ""
      else "\n  metrics: " + r.metrics.map { case (k, v) => s"$k=$v" }.mkString(", ")
      head + reasons.mkString + metrics
    }.mkString("\n")

  /** The reports as JSON, one per line (`fastwindow.explain` in Python reads it). */
  def toJson(reports: Seq[WindowReport]): String =
    JsonText.array(reports, JsonText.OnePerLine) { (json, r) =>
      json.writeStartObject()
      json.writeStringField("operator", r.operator)
      json.writeBooleanField("fastwindow", r.fastwindow)
      JsonText.strings(json, "windowExpressions", r.windowExpressions)
      JsonText.strings(json, "partitionSpec", r.partitionSpec)
      JsonText.strings(json, "orderSpec", r.orderSpec)
      JsonText.optional(json, "reason", r.reason)
      JsonText.optional(json, "note", r.note)
      json.writeArrayFieldStart("reasons")
      r.reasons.foreach { reason =>
        json.writeStartObject()
        json.writeStringField("id", reason.id)
        json.writeStringField("message", reason.message)
        json.writeEndObject()
      }
      json.writeEndArray()
      json.writeObjectFieldStart("metrics")
      r.metrics.foreach { case (name, value) => json.writeNumberField(name, value) }
      json.writeEndObject()
      json.writeEndObject()
    }

  /** The support table, as JSON: one object per function with its frames and input types. */
  def supportJson: String =
    JsonText.array(WindowSupport.supportEntries, JsonText.OnePerIndentedLine) { (json, e) =>
      json.writeStartObject()
      json.writeStringField("function", e.function)
      json.writeStringField("kind", e.kind)
      JsonText.strings(json, "frames", e.frames)
      json.writeStringField("inputs", e.inputs)
      json.writeEndObject()
    }
}
