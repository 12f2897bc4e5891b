package fastwindow.functions

import scala.reflect.ClassTag

import org.apache.spark.sql.catalyst.expressions.Expression

import fastwindow.columns.ColumnLayout
import fastwindow.frames.PeerGroups
import fastwindow.kernels.Kernel
import fastwindow.model.{AcrossTasksRole, FallbackReason, FunctionSpec}
import fastwindow.ops.{FunctionOps, FunctionRequests}

/**
 * One family of window functions fastwindow runs (ranking, offset, declarative aggregate,
 * nth_value, ...), declared once: which functions it takes and how it checks them (with a
 * reason when it cannot run one), the spec it plans (which says what the function reads, whether
 * and how it streams), what its kernel needs generated, its kernel, and its rows of the support
 * table. Everything else — the support check, the evaluator, the docs — is derived from the list
 * of families in [[WindowSupport.families]], the way spark-rapids derives its checks and docs
 * from one declaration per expression.
 *
 * Adding a family: one subclass with its spec class, one kernel (`fastwindow.kernels`), an entry
 * in [[WindowSupport.families]], and tests.
 *
 * @param kind the `kind` column of the support table
 */
abstract class FunctionFamily[S <: FunctionSpec](val kind: String)(implicit specTag: ClassTag[S]) {

  /**
   * The class of the specs it plans. Besides telling its specs from others', it registers the
   * class as part of the plan: the plan is built once and read by every operator's copy of the
   * algorithm classes, which share this class rather than copy it (`AlgorithmIsolation`).
   */
  final def specClass: Class[_ <: FunctionSpec] =
    specTag.runtimeClass.asSubclass(classOf[FunctionSpec])

  /** The SQL names of the functions it runs, as reasons list them. */
  def sqlNames: Seq[String]

  /** Whether its functions are aggregates (listed as such where an aggregate falls back). */
  def runsAggregates: Boolean = false

  /**
   * `expression` (a window expression of a logical Window) with each expression over a window
   * function that this family computes as one function (e.g. `size(collect_set(x) OVER w)`)
   * replaced by a window expression of its own, which [[plan]] then takes. Planning only: the
   * operator keeps Spark's expressions.
   */
  def fuse(expression: Expression): Expression = expression

  /**
   * Plans `call`'s function (the window function of a window expression): None when it is not
   * this family's, else the spec or the reason it cannot run. Families check with their
   * [[Signature]], which words the reasons every family gives.
   */
  def plan(call: WindowCall): Planned

  /** What [[plan]] returns: None, or the spec or the reason it cannot run. */
  type Planned = Option[Either[FallbackReason, S]]

  /** What `spec`'s kernel needs generated (or interpreted), reading columns of `layout`. */
  def requests(spec: S, layout: ColumnLayout): FunctionRequests = FunctionRequests()

  /** The kernel of `spec`, over the ops its requests produced. */
  def kernel(spec: S, ops: FunctionOps, peers: PeerGroups): Kernel

  /**
   * How `spec` runs when its window is spread over ranges ([[fastwindow.model.AcrossTasksRole]]),
   * with `exactFloats` (`spark.fastwindow.exactFloats`) and at most `maxHaloRows` rows of the
   * ranges around each; by default in one task.
   */
  def acrossTasks(spec: S, exactFloats: Boolean, maxHaloRows: Int): AcrossTasksRole =
    AcrossTasksRole.NotYet

  /** Its rows of the support table. */
  def supportEntries: Seq[SupportEntry]

  final def owns(spec: FunctionSpec): Boolean = specClass.isInstance(spec)
  final def requestsOf(spec: FunctionSpec, layout: ColumnLayout): FunctionRequests =
    requests(specClass.cast(spec).asInstanceOf[S], layout)
  final def acrossTasksOf(spec: FunctionSpec, exactFloats: Boolean,
      maxHaloRows: Int): AcrossTasksRole =
    acrossTasks(specClass.cast(spec).asInstanceOf[S], exactFloats, maxHaloRows)
  final def kernelOf(spec: FunctionSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    kernel(specClass.cast(spec).asInstanceOf[S], ops, peers)
}
