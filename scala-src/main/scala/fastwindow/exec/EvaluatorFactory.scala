package fastwindow.exec

import scala.util.control.NonFatal

import org.slf4j.LoggerFactory

import fastwindow.FastWindowConf.CodegenMode
import fastwindow.codegen.EvaluatorCodegen
import fastwindow.codegen.EvaluatorCodegen.GeneratedSource

/**
 * Builds the [[WindowEvaluator]] of each task, generated or interpreted according to
 * `spark.fastwindow.codegen.mode` (read on the driver, shipped with the plan).
 *
 * The Java source is generated once, on the driver; a generation or compile failure in FALLBACK
 * mode is logged and the task runs on the interpreted twin instead, so a codegen bug costs speed,
 * never the query.
 */
final class EvaluatorFactory private (
    layout: EvaluatorLayout,
    mode: String,
    source: Option[GeneratedSource]) extends Serializable {

  /** Returns the evaluator and whether it is the generated one. */
  def create(): (WindowEvaluator, Boolean) = mode match {
    case CodegenMode.NoCodegen => (new InterpretedEvaluator(layout), false)
    case CodegenMode.CodegenOnly => (source.get.instantiate(), true)
    case _ =>
      source.flatMap { s =>
        try Some(s.instantiate()) catch {
          case NonFatal(e) =>
            EvaluatorFactory.log.warn(
              "fastwindow: compiling the generated window evaluator failed; this task uses the " +
                "interpreted evaluator (same results, slower).", e)
            None
        }
      } match {
        case Some(generated) => (generated, true)
        case None => (new InterpretedEvaluator(layout), false)
      }
  }

  /** A new evaluator of the same kind as `like` (generated or not), its buffers at initial size. */
  def renew(like: WindowEvaluator): WindowEvaluator = like match {
    case _: InterpretedEvaluator => new InterpretedEvaluator(layout)
    case _ => source.get.instantiate()
  }
}

object EvaluatorFactory {
  private val log = LoggerFactory.getLogger(classOf[EvaluatorFactory])

  def apply(layout: EvaluatorLayout, mode: String): EvaluatorFactory = {
    val source = mode match {
      case CodegenMode.NoCodegen => None
      case CodegenMode.CodegenOnly => Some(EvaluatorCodegen.generate(layout))
      case _ =>
        try Some(EvaluatorCodegen.generate(layout)) catch {
          case NonFatal(e) =>
            log.warn("fastwindow: generating the window evaluator failed; the query uses the " +
              "interpreted evaluator (same results, slower).", e)
            None
        }
    }
    new EvaluatorFactory(layout, mode, source)
  }
}
