package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}

import fastwindow.columns.ColumnLayout
import fastwindow.frames.PeerGroups
import fastwindow.kernels.Kernel
import fastwindow.model.{FallbackReason, FunctionSpec, WindowPlan}
import fastwindow.ops.{OpsPlan, OpsSet}

/**
 * The registry of function families, and what is derived from it: whether fastwindow can run a
 * logical `Window` ([[check]]), what its evaluator needs ([[opsPlan]], [[kernel]]) and the
 * support table ([[supportEntries]]).
 *
 * [[check]] returns either a [[WindowPlan]] or every reason (with a stable id) why not, naming
 * the function, the frame and the type that are not supported. If any expression of a node is
 * unsupported the whole node stays on Spark's `WindowExec`.
 */
object WindowSupport {

  /**
   * Every family fastwindow runs, in the order the support table lists them and planning tries
   * them: [[AggregateFamily]] answers for every aggregate (with a reason for those it does not
   * run), so families of particular aggregates come before it; [[RowByRowFamily]] answers for
   * the window functions the ones before it do not take.
   */
  val families: Seq[FunctionFamily[_ <: FunctionSpec]] =
    Seq(
      RankingFamily,
      OffsetFamily,
      PercentileFamily,
      ModeFamily,
      DistinctAggregateFamily,
      ApproxCountDistinctFamily,
      ApproxPercentileFamily,
      CollectListFamily,
      ReplayedAggregateFamily,
      AggregateFamily,
      NthValueFamily,
      RowByRowFamily
    )

  /** How the support table shows the frame of functions that have their own. */
  val OwnFrame = "its own (set by Spark)"

  /** Result of a support check: a plan, or the reasons fastwindow leaves the node to Spark. */
  type Outcome = Either[Seq[FallbackReason], WindowPlan]

  def check(nodeExpressions: Seq[NamedExpression], orderSpec: Seq[SortOrder]): Outcome = {
    val windowExpressions = nodeExpressions.map { e =>
      families.foldLeft(e: Expression)((fused, family) => family.fuse(fused))
        .asInstanceOf[NamedExpression]
    }
    val functions = windowExpressions.flatMap(_.collect { case w: WindowExpression => w })
      .foldLeft(Vector.empty[WindowExpression]) { (acc, w) =>
        if (acc.exists(_.semanticEquals(w))) acc else acc :+ w
      }
    val specs = functions.zipWithIndex.map { case (w, ordinal) => functionSpec(w, ordinal) }
    val problems = windowExpressions.flatMap(outputProblem) ++ specs.collect { case Left(r) => r }
    if (problems.nonEmpty) Left(problems.distinct)
    else {
      val outputs = windowExpressions.map { e =>
        e.asInstanceOf[Alias].child.transform {
          case w: WindowExpression =>
            BoundReference(functions.indexWhere(_.semanticEquals(w)), w.dataType, w.nullable)
        }
      }
      val plan = WindowPlan(specs.collect { case Right(s) => s }, outputs, orderSpec)
      peerKeyProblem(plan).map(Seq(_)).toLeft(plan)
    }
  }

  /** The family that planned `spec`. */
  def familyOf(spec: FunctionSpec): FunctionFamily[_ <: FunctionSpec] =
    families.find(_.owns(spec)).getOrElse(
      throw new IllegalArgumentException(s"no family plans $spec"))

  /** Everything `plan`'s evaluator needs generated (or interpreted), by function. */
  def opsPlan(plan: WindowPlan, layout: ColumnLayout): OpsPlan =
    OpsPlan(layout, plan.functions.map(f => familyOf(f).requestsOf(f, layout)))

  /** Function k of `plan`'s kernel for one task, over that task's ops. */
  def kernel(plan: WindowPlan, k: Int, ops: OpsSet, peers: PeerGroups): Kernel = {
    val f = plan.functions(k)
    familyOf(f).kernelOf(f, ops.functions(k), peers)
  }

  def supportEntries: Seq[SupportEntry] = families.flatMap(_.supportEntries)

  /** Every aggregate fastwindow runs, by the names reasons give when an aggregate falls back. */
  def aggregateNames: Seq[String] = families.filter(_.runsAggregates).flatMap(_.sqlNames).distinct

  /**
   * A window expression must compute its value from window functions alone: an alias of one
   * function, or of an expression over functions (DecimalAggregates rewrites avg and sum of small
   * decimals that way).
   */
  private def outputProblem(e: NamedExpression): Option[FallbackReason] = e match {
    case Alias(child, _) =>
      val withoutFunctions = child.transform {
        // A null of no type: a function's type may not be known (a percentile's percentage
        // that is not a constant), and its family gives the reason.
        case _: WindowExpression => Literal(null)
      }
      if (withoutFunctions.references.isEmpty) None
      else Some(FallbackReason(FallbackReason.UnsupportedExpression,
          s"window expression ${e.sql} also reads input columns, which is not supported yet"))
    case other => Some(FallbackReason(FallbackReason.UnsupportedExpression,
          s"window expression ${other.sql} is not an aliased window function"))
  }

  private def functionSpec(
      w: WindowExpression, ordinal: Int): Either[FallbackReason, FunctionSpec] =
    w.windowSpec.frameSpecification match {
      case frame: SpecifiedWindowFrame =>
        families.iterator
          .flatMap(_.plan(WindowCall(w.windowFunction, frame, w.windowSpec.orderSpec, ordinal)))
          .collectFirst { case planned => planned }
          .getOrElse(Left(FallbackReason(
                FallbackReason.UnsupportedFunction,
                s"window function ${w.windowFunction.prettyName} is not supported yet " +
                  s"(supported: ${families.flatMap(_.sqlNames).mkString(", ")})"
              )))
      case other => Left(FallbackReason(FallbackReason.UnsupportedFrame,
            s"window frame $other is not resolved"))
    }

  /** Peers are found by comparing order keys, which needs an ordering fastwindow implements. */
  private def peerKeyProblem(plan: WindowPlan): Option[FallbackReason] =
    if (!plan.needsPeers) None
    else plan.orderSpec.find(o => !TypeSet.peerKey.contains(o.dataType)).map { o =>
      val user = plan.functions.find(_.needsPeers).map(_.describe).getOrElse("")
      FallbackReason(
        FallbackReason.UnsupportedOrderKey,
        s"$user needs peers of ORDER BY ${o.child.sql} of type ${o.dataType.sql}, " +
          s"which is not supported yet (supported order key types: ${TypeSet.peerKey.description})"
      )
    }
}
