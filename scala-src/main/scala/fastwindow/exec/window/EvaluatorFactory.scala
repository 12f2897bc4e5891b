package fastwindow.exec.window

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.slf4j.LoggerFactory

import fastwindow.codegen.OpsCodegen
import fastwindow.codegen.OpsCodegen.GeneratedSource
import fastwindow.columns.ColumnLayout
import fastwindow.config.CodegenMode
import fastwindow.functions.WindowSupport
import fastwindow.model.WindowPlan
import fastwindow.ops.{InterpretedOps, OpsPlan}

/**
 * Builds each task's [[WindowEvaluator]], with generated or interpreted ops according to
 * `spark.fastwindow.codegen.mode` (read on the driver, shipped with the plan).
 *
 * The Java source is generated once, on the driver; a generation or compile failure in FALLBACK
 * mode is logged and the task runs on the interpreted ops instead, so a codegen bug costs speed,
 * never the query.
 */
final class EvaluatorFactory private (
    plan: WindowPlan,
    layout: ColumnLayout,
    opsPlan: OpsPlan,
    mode: String,
    source: Option[GeneratedSource])
  extends Serializable {

  /** A new evaluator: generated unless the mode or a compile failure says otherwise. */
  def create(): WindowEvaluator = mode match {
    case CodegenMode.NoCodegen => build(generated = false)
    case CodegenMode.CodegenOnly => build(generated = true)
    case _ =>
      try build(generated = source.isDefined)
      catch {
        case NonFatal(e) =>
          EvaluatorFactory.log.warn(
            "fastwindow: compiling the generated window evaluator failed; this task uses the " +
              "interpreted evaluator (same results, slower).", e)
          build(generated = false)
      }
  }

  /** A new evaluator of the same kind as `like`, its buffers at initial size. */
  def renew(like: WindowEvaluator): WindowEvaluator = build(like.generated)

  /** Generated: with the operator's own copy of the algorithms ([[AlgorithmIsolation]]). */
  private def build(generated: Boolean): WindowEvaluator = {
    val columns = layout.newColumns()
    if (generated) {
      val (operator, ops) = source.get.instantiate(columns)
      AlgorithmIsolation.newEvaluator(operator, plan, layout, columns, ops)
    } else {
      new KernelEvaluator(plan, layout, columns, InterpretedOps(opsPlan, columns),
        generated = false, _ => null, null)
    }
  }
}

object EvaluatorFactory {
  private val log = LoggerFactory.getLogger(classOf[EvaluatorFactory])

  def apply(plan: WindowPlan, childOutput: Seq[Attribute], mode: String): EvaluatorFactory = {
    val layout = ColumnLayout(plan, childOutput)
    val opsPlan = WindowSupport.opsPlan(plan, layout)
    val source = mode match {
      case CodegenMode.NoCodegen => None
      case CodegenMode.CodegenOnly => Some(OpsCodegen.generate(opsPlan))
      case _ =>
        try Some(OpsCodegen.generate(opsPlan))
        catch {
          case NonFatal(e) =>
            log.warn("fastwindow: generating the window evaluator failed; the query uses the " +
                "interpreted evaluator (same results, slower).", e)
            None
        }
    }
    new EvaluatorFactory(plan, layout, opsPlan, mode, source)
  }
}
