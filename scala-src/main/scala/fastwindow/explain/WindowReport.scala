package fastwindow.explain

import org.apache.spark.sql.{Dataset, ExtendedExplainGenerator}
import org.apache.spark.sql.catalyst.expressions.{NamedExpression, SpecifiedWindowFrame, WindowExpression}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.window.{WindowExec, WindowExecBase}

import fastwindow.exec.FastWindowExec
import fastwindow.planning.{FastWindowStrategy, WindowSupport}

/**
 * Who runs one window operator of a physical plan, and — when Spark does — why fastwindow did
 * not. This answers a user's "did my query use fastwindow, and if not why". Once the plan has
 * run, `metrics` holds the operator's SQL metrics (rows, partitions streamed or buffered, spill,
 * peak memory; empty before execution and for Spark's operator).
 */
final case class WindowReport(
    operator: String,
    fastwindow: Boolean,
    windowExpressions: Seq[String],
    partitionSpec: Seq[String],
    orderSpec: Seq[String],
    reason: Option[String],
    metrics: Seq[(String, Long)] = Nil)

object WindowReport extends AdaptiveSparkPlanHelper {

  /**
   * A window expression's SQL with its frames written as users write them (Spark's own `sql`
   * prints `2 PRECEDING` as `-2 FOLLOWING`).
   */
  def userSql(e: NamedExpression): String = {
    val frames = e.collect { case w: WindowExpression => w.windowSpec.frameSpecification }
      .collect { case f: SpecifiedWindowFrame => f }
    frames.foldLeft(e.sql)((sql, f) => sql.replace(f.sql, WindowSupport.frameSql(f)))
  }

  val NotInstalledReason: String =
    "fastwindow's planner strategy is not installed on this session (start it with " +
      "spark.sql.extensions=fastwindow.FastWindowExtensions, or call fastwindow.enable(spark))"

  def of(df: Dataset[_]): Seq[WindowReport] = df match {
    case classic: org.apache.spark.sql.classic.Dataset[_] =>
      of(classic.queryExecution.executedPlan)
    case other =>
      throw new IllegalArgumentException(
        s"fastwindow can only explain classic (non-Connect) Datasets, got ${other.getClass}")
  }

  /** Every window operator in `plan`, including inside adaptive query stages. */
  def of(plan: SparkPlan): Seq[WindowReport] = collect(plan) {
    case f: FastWindowExec =>
      report(f, fastwindow = true, None).copy(metrics = f.metrics.toSeq.sortBy(_._1).collect {
        case (name, metric) if !metric.isZero || name == "numOutputRows" =>
          name -> metric.value
      })
    case w: WindowExec => report(w, fastwindow = false, Some(fallbackReason(w)))
    case w: WindowExecBase =>
      report(w, fastwindow = false,
        Some("Python UDF window functions run on Spark's Python window operator"))
  }

  private def report(w: WindowExecBase, fastwindow: Boolean, reason: Option[String]) =
    WindowReport(
      w.nodeName,
      fastwindow,
      w.windowExpression.map(WindowReport.userSql),
      w.partitionSpec.map(_.sql),
      w.orderSpec.map(_.sql),
      reason)

  /** The reason recorded at planning time, or the support check's verdict if none was. */
  private def fallbackReason(w: WindowExec): String =
    w.logicalLink.flatMap(_.getTagValue(FastWindowStrategy.FallbackReason)).getOrElse {
      WindowSupport.check(w.windowExpression, w.orderSpec) match {
        case Left(reason) => reason
        case Right(_) => NotInstalledReason
      }
    }

  def render(reports: Seq[WindowReport]): String =
    if (reports.isEmpty) "no window operators in this plan"
    else reports.map { r =>
      val who = if (r.fastwindow) "runs on fastwindow" else "runs on Spark"
      val head = s"${r.operator} [${r.windowExpressions.mkString(", ")}] $who"
      val metrics = if (r.metrics.isEmpty) ""
        else "\n  metrics: " + r.metrics.map { case (k, v) => s"$k=$v" }.mkString(", ")
      head + r.reason.map(reason => s"\n  reason: $reason").getOrElse("") + metrics
    }.mkString("\n")

  def toJson(reports: Seq[WindowReport]): String = reports.map { r =>
    Json.obj(
      "operator" -> Json.str(r.operator),
      "fastwindow" -> r.fastwindow.toString,
      "windowExpressions" -> Json.arr(r.windowExpressions),
      "partitionSpec" -> Json.arr(r.partitionSpec),
      "orderSpec" -> Json.arr(r.orderSpec),
      "reason" -> r.reason.map(Json.str).getOrElse("null"),
      "metrics" -> r.metrics.map { case (k, v) => s"${Json.str(k)}: $v" }.mkString("{", ", ", "}"))
  }.mkString("[", ",\n", "]")
}

/** Adds fastwindow's window report to `EXPLAIN EXTENDED` (via spark.sql.extendedExplainProviders). */
class FastWindowExplainGenerator extends ExtendedExplainGenerator {
  override def title: String = "fastwindow"
  override def generateExtendedInfo(plan: SparkPlan): String =
    WindowReport.render(WindowReport.of(plan))
}

/** Minimal JSON writing for the reports shared with Python (no dependency on Spark's json4s). */
object Json {
  def str(s: String): String = {
    val out = new StringBuilder("\"")
    s.foreach {
      case '"' => out.append("\\\"")
      case '\\' => out.append("\\\\")
      case c if c < ' ' => out.append(f"\\u${c.toInt}%04x")
      case c => out.append(c)
    }
    out.append('"').toString
  }
  def arr(items: Seq[String]): String = items.map(str).mkString("[", ", ", "]")
  def obj(fields: (String, String)*): String =
    fields.map { case (k, v) => s"${str(k)}: $v" }.mkString("{", ", ", "}")
}
