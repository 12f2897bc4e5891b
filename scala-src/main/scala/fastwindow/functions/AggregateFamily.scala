package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.catalyst.trees.CurrentOrigin
import org.apache.spark.sql.execution.aggregate.{ScalaAggregator, ScalaUDAF}
import org.apache.spark.sql.fastwindow.shims.ArithmeticShim
import org.apache.spark.sql.types.{BooleanType, DecimalType, DoubleType}

import fastwindow.columns.ColumnLayout
import fastwindow.config.FastWindowConf
import fastwindow.frames.{InSparkOrder, PeerGroups, TwoStacks}
import fastwindow.kernels.{AggregateKernel, Kernel}
import fastwindow.model.{AcrossTasksRole, FallbackReason, FilteredAggregate, FrameShape, IntervalSums}
import fastwindow.ops.{AggregateRequest, BoundAggregate, FunctionOps, FunctionRequests}

/**
 * Declarative aggregates (count, sum, avg, min, max, the variance family, first/last,
 * min_by/max_by, bit operations, ...) over every frame, with FILTER: see [[AggregateKernel]].
 * Which aggregates, and over which input types, is the table [[rules]].
 */
object AggregateFamily extends FunctionFamily[AggregateSpec]("aggregate") {

  /**
   * An aggregate this family runs, and every fact about it that decides how fastwindow may run it:
   * the planner, the hash window, the sliding frames and the support table read them here.
   *
   * @param name      the name reasons use; `aliases` are the other SQL names of the same function
   *                  (shown in the support table)
   * @param inputs    the types its (non-constant) inputs may have
   * @param matches   whether an aggregate is this one (after Spark's rewrites: bool_and is min)
   * @param order     how its result depends on the order of its rows (per input type and
   *                  arithmetic mode): whether it runs per key by hash, rounds by order (exact
   *                  floats) and how its partial states merge
   * @param guard     what the two stacks of a sliding frame watch, where combining its partials in
   *                  another grouping than Spark's may overflow where Spark's loop does not
   * @param typed     the inputs to check, each with its type set (default: every child, `inputs`)
   * @param inputsDescription how the support table describes the inputs (default: `inputs`)
   */
  final case class Rule(
      name: String,
      inputs: TypeSet,
      matches: DeclarativeAggregate => Boolean,
      order: DeclarativeAggregate => OrderDependence,
      guard: SlidingGuard.GuardOf,
      aliases: Seq[String] = Nil,
      typed: Option[DeclarativeAggregate => Seq[(Expression, TypeSet)]] = None,
      inputsDescription: Option[String] = None) {
    def typedInputs(agg: DeclarativeAggregate): Seq[(Expression, TypeSet)] =
      typed.fold(agg.children.map(_ -> inputs))(_(agg))
    def names: Seq[String] = name +: aliases
    def description: String =
      inputsDescription.getOrElse(inputs.description) + "; FILTER (WHERE ...)"
  }

  // The planning facts below are lazy: each operator's copy of this object (AlgorithmIsolation)
  // only builds kernels, and building the rules there would load their classes into every copy.

  /** Variance and the other moments read their input as double (Spark casts it). */
  private lazy val numericAsDouble =
    TypeSet.numeric.as(s"${TypeSet.numeric.description} (as double)")

  private lazy val byOrdering: DeclarativeAggregate => Seq[(Expression, TypeSet)] = {
    case m: MaxMinBy =>
      Seq(m.valueExpr -> TypeSet.anyBufferable, m.orderingExpr -> TypeSet.orderable)
    case other => other.children.map(_ -> TypeSet.anyBufferable)
  }
  private lazy val byOrderingDescription =
    s"value: ${TypeSet.anyBufferable.description}; ordering: ${TypeSet.orderable.description}"
  private lazy val ignoreNulls = s"${TypeSet.anyBufferable.description}; IGNORE NULLS"

  private def always(order: OrderDependence): DeclarativeAggregate => OrderDependence = _ => order

  /** min and max: free of the order unless equal values can differ in bytes (the one seen first
   * is kept: 0.0 and -0.0, strings equal under a collation). */
  private lazy val extremum: DeclarativeAggregate => OrderDependence = agg =>
    if (TypeSet.byteStable.contains(agg.children.head.dataType)) OrderDependence.Free
    else OrderDependence.Positional

  /** sum and avg, by what they add: see [[OrderDependence]]. */
  private lazy val summed: DeclarativeAggregate => OrderDependence = {
    case s: Sum if s.dataType == DoubleType => OrderDependence.Rounding
    case a: Average if a.sumDataType == DoubleType => OrderDependence.Rounding // non-decimals
    case i if IntervalSums.summed(i) => OrderDependence.FreeUntilOverflow
    case agg => agg.children.head.dataType match {
        case d: DecimalType if d.precision <= 28 =>
          OrderDependence.Free // exact in a 38-digit buffer
        case _: DecimalType => OrderDependence.FreeUntilOverflow
        case _ => agg match { // integral sums: wrapping (LEGACY) or checked
            case s: Sum if ArithmeticShim.evalMode(s) != EvalMode.LEGACY =>
              OrderDependence.FreeWithinLong
            case _ => OrderDependence.Free
          }
      }
  }

  private lazy val free = always(OrderDependence.Free)
  private lazy val positional = always(OrderDependence.Positional)
  private lazy val rounding = always(OrderDependence.Rounding)

  lazy val rules: Seq[Rule] = Seq(
    // count_if, regr_count, try_sum, try_avg, mean and regr_avgx/avgy are Spark's rewrites into
    // count, sum and avg.
    Rule("count", TypeSet.anyBufferable, _.isInstanceOf[Count], free, SlidingGuard.none,
      aliases = Seq("count_if", "regr_count")),
    Rule("sum", TypeSet.summable, _.isInstanceOf[Sum], summed, SlidingGuard.sums,
      aliases = Seq("try_sum")),
    Rule("avg", TypeSet.summable, _.isInstanceOf[Average], summed, SlidingGuard.sums,
      aliases = Seq("mean", "try_avg", "regr_avgx", "regr_avgy")),
    // Spark rewrites bool_and/every into min and bool_or/some/any into max of a boolean.
    Rule("min", TypeSet.orderable, _.isInstanceOf[Min], extremum, SlidingGuard.none,
      aliases = Seq("bool_and", "every")),
    Rule("max", TypeSet.orderable, _.isInstanceOf[Max], extremum, SlidingGuard.none,
      aliases = Seq("bool_or", "some", "any")),
    Rule("stddev_samp", numericAsDouble, _.isInstanceOf[StddevSamp], rounding,
      SlidingGuard.moments, aliases = Seq("stddev", "std")),
    Rule("stddev_pop", numericAsDouble, _.isInstanceOf[StddevPop], rounding, SlidingGuard.moments),
    Rule("var_samp", numericAsDouble, _.isInstanceOf[VarianceSamp], rounding,
      SlidingGuard.moments, aliases = Seq("variance")),
    Rule("var_pop", numericAsDouble, _.isInstanceOf[VariancePop], rounding, SlidingGuard.moments),
    Rule("skewness", numericAsDouble, _.isInstanceOf[Skewness], rounding,
      SlidingGuard.higherMoments),
    Rule("kurtosis", numericAsDouble, _.isInstanceOf[Kurtosis], rounding,
      SlidingGuard.higherMoments),
    Rule("covar_pop", numericAsDouble, _.isInstanceOf[CovPopulation], rounding,
      SlidingGuard.coMoments),
    Rule("covar_samp", numericAsDouble, _.isInstanceOf[CovSample], rounding,
      SlidingGuard.coMoments),
    Rule("corr", numericAsDouble, _.isInstanceOf[Corr], rounding, SlidingGuard.coMomentRatios),
    // regr_sxx and regr_syy are Spark's rewrites into a central moment of their own.
    Rule("regr_sxx", numericAsDouble, _.isInstanceOf[RegrReplacement], rounding,
      SlidingGuard.moments, aliases = Seq("regr_syy")),
    Rule("regr_sxy", numericAsDouble, _.isInstanceOf[RegrSXY], rounding, SlidingGuard.coMoments),
    Rule("regr_r2", numericAsDouble, _.isInstanceOf[RegrR2], rounding,
      SlidingGuard.coMomentRatios),
    Rule("regr_slope", numericAsDouble, _.isInstanceOf[RegrSlope], rounding,
      SlidingGuard.coMomentRatios),
    Rule("regr_intercept", numericAsDouble, _.isInstanceOf[RegrIntercept], rounding,
      SlidingGuard.coMomentRatios),
    // any_value is first (Spark rewrites it); IGNORE NULLS is a flag of the function.
    Rule(
      "first",
      TypeSet.anyBufferable,
      _.isInstanceOf[First],
      positional,
      SlidingGuard.none,
      aliases = Seq("first_value", "any_value"),
      inputsDescription = Some(ignoreNulls)
    ),
    Rule("last", TypeSet.anyBufferable, _.isInstanceOf[Last], positional, SlidingGuard.none,
      aliases = Seq("last_value"), inputsDescription = Some(ignoreNulls)),
    // Ties of the ordering keep the row seen first.
    Rule(
      "min_by",
      TypeSet.anyBufferable,
      _.isInstanceOf[MinBy],
      positional,
      SlidingGuard.none,
      typed = Some(byOrdering),
      inputsDescription = Some(byOrderingDescription)
    ),
    Rule(
      "max_by",
      TypeSet.anyBufferable,
      _.isInstanceOf[MaxBy],
      positional,
      SlidingGuard.none,
      typed = Some(byOrdering),
      inputsDescription = Some(byOrderingDescription)
    ),
    Rule("bit_and", TypeSet.integral, _.isInstanceOf[BitAndAgg], free, SlidingGuard.none),
    Rule("bit_or", TypeSet.integral, _.isInstanceOf[BitOrAgg], free, SlidingGuard.none),
    Rule("bit_xor", TypeSet.integral, _.isInstanceOf[BitXorAgg], free, SlidingGuard.none),
    // Spark gives product no SQL name: DataFrame API only (functions.product).
    Rule(
      "product",
      numericAsDouble,
      _.isInstanceOf[Product],
      rounding,
      SlidingGuard.products,
      inputsDescription = Some(s"${numericAsDouble.description}; DataFrame API only")
    )
  )

  /** The rule of `agg` (a FILTER unwrapped), if this family runs it. */
  def ruleOf(agg: DeclarativeAggregate): Option[Rule] = agg match {
    case FilteredAggregate(inner, _) => ruleOf(inner)
    case other => rules.find(_.matches(other))
  }

  /** How `agg`'s result depends on its rows' order; None when this family does not run it. */
  def orderDependence(agg: DeclarativeAggregate): Option[OrderDependence] = agg match {
    case FilteredAggregate(inner, _) => orderDependence(inner)
    case other => ruleOf(other).map(_.order(other))
  }

  override def runsAggregates: Boolean = true
  override def sqlNames: Seq[String] = rules.flatMap(_.names)

  override def plan(call: WindowCall): Planned = call.function match {
    case AggregateExpression(agg, mode, isDistinct, filter, _) =>
      val name = nameOf(agg)
      Some(
        if (mode != Complete) {
          Left(FallbackReason(FallbackReason.UnsupportedFunction,
              s"aggregate $name in mode $mode is not supported"))
        } else if (isDistinct) {
          Left(FallbackReason(FallbackReason.UnsupportedFunction,
              s"$name(DISTINCT ...) is not supported"))
        } else aggregate(agg, name, call.frame, call.orderSpec, filter, call.ordinal))
    case _ => None
  }

  /** How reasons name an aggregate: user-defined ones by their registered name or class. */
  private def nameOf(agg: AggregateFunction): String = agg match {
    case u: ScalaUDAF =>
      s"user-defined aggregate ${u.udafName.getOrElse(u.udaf.getClass.getName)}"
    case a: ScalaAggregator[_, _, _] =>
      s"Aggregator ${a.aggregatorName.getOrElse(a.agg.getClass.getName)}"
    case _: ImperativeAggregate | _: TypedImperativeAggregate[_] if agg.prettyName.isEmpty =>
      s"aggregate ${agg.getClass.getName}"
    case _ => agg.prettyName
  }

  private def aggregate(
      agg: AggregateFunction,
      name: String,
      frame: SpecifiedWindowFrame,
      orderSpec: Seq[SortOrder],
      filter: Option[Expression],
      ordinal: Int): Either[FallbackReason, AggregateSpec] = {
    val rule = agg match {
      case d: DeclarativeAggregate => ruleOf(d).map(r => (r, d))
      case _ => None
    }
    rule match {
      case None =>
        Left(FallbackReason(FallbackReason.UnsupportedFunction,
            s"aggregate function $name is not supported yet " +
              s"(supported: ${WindowSupport.aggregateNames.mkString(", ")})"))
      case Some((r, declarative)) =>
        val badInput = r.typedInputs(declarative).collectFirst {
          case (c, types) if !c.foldable && !types.contains(c.dataType) => c
        }
        val badFilter = filter.filterNot(f => f.dataType == BooleanType && f.deterministic)
        (badInput, badFilter) match {
          case (Some(bad), _) =>
            Left(FallbackReason(FallbackReason.UnsupportedType,
                s"$name of type ${bad.dataType.sql} is not supported " +
                  s"(supported input types: ${r.description})"))
          case (None, Some(f)) =>
            Left(FallbackReason(FallbackReason.UnsupportedFunction,
                s"$name(...) FILTER (WHERE ${f.sql}) is not supported"))
          case (None, None) =>
            val inSparkOrder =
              FastWindowConf.EXACT_FLOATS.get() && r.order(declarative).roundsByOrder
            framed(name, frame, orderSpec) { shape =>
              AggregateSpec(ordinal, filter.fold(declarative)(FilteredAggregate(declarative, _)),
                shape, inSparkOrder && shape.isSliding)
            }
        }
    }
  }

  /** `spec(shape)` for a supported frame, else the frame's reason (shared with nth_value). */
  def framed[S](name: String, frame: SpecifiedWindowFrame, orderSpec: Seq[SortOrder])(
      spec: FrameShape => S): Either[FallbackReason, S] =
    FramePlanning.shape(frame, orderSpec).map(spec).left.map { why =>
      FallbackReason(
        FallbackReason.UnsupportedFrame,
        s"$name over the frame ${FramePlanning.sql(frame)} is not supported yet" +
          (if (why.isEmpty) "" else s": $why") +
          s" (supported frames: ${FramePlanning.supported.mkString("; ")})"
      )
    }

  /**
   * The aggregate with its non-constant inputs replaced by column attributes. The copy keeps the
   * original's origin so ANSI errors carry the same query context as Spark's.
   */
  def columnar(agg: DeclarativeAggregate, layout: ColumnLayout): DeclarativeAggregate =
    CurrentOrigin.withOrigin(agg.origin) {
      agg.mapChildren(c => if (c.foldable) c else layout.columnOf(c).attribute)
        .asInstanceOf[DeclarativeAggregate]
    }

  /** The request of `agg` evaluated as Spark does, row by row in order. */
  def exact(agg: DeclarativeAggregate, layout: ColumnLayout, ordinal: Int): AggregateRequest =
    AggregateRequest(BoundAggregate.of(Seq(columnar(agg, layout)), layout.attributes),
      agg.dataType, ordinal)

  /**
   * Whole and running frames, and sliding frames folded in Spark's order: one request, the
   * aggregate itself. Other sliding frames: what the two stacks combine ([[SlidingGuard]]), then,
   * when it is guarded, the aggregate itself for frames folded in Spark's order. Sliding frames
   * then add their RANGE edges.
   */
  override def requests(spec: AggregateSpec, layout: ColumnLayout): FunctionRequests =
    if (spec.inSparkOrder) {
      FunctionRequests(
        aggregates = Seq(exact(spec.function, layout, spec.ordinal)),
        rangeEdges = FramePlanning.requests(spec.frame, layout))
    } else if (spec.frame.isSliding) {
      val partial = SlidingGuard.partial(
        columnar(spec.function, layout), layout.attributes, spec.ordinal)
      val exactToo = if (partial.needsExact.isDefined) {
        Seq(exact(spec.function, layout, spec.ordinal))
      } else Nil
      FunctionRequests(
        aggregates = partial +: exactToo,
        rangeEdges = FramePlanning.requests(spec.frame, layout))
    } else {
      FunctionRequests(aggregates = Seq(exact(spec.function, layout, spec.ordinal)))
    }

  override def kernel(spec: AggregateSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    kernelOver(spec.frame, ops, peers, spec.inSparkOrder)

  /** The aggregate kernel of `frame` over `ops` (laid out by [[requests]]). */
  def kernelOver(
      frame: FrameShape,
      ops: FunctionOps,
      peers: PeerGroups,
      inSparkOrder: Boolean = false): Kernel = {
    val main = ops.aggregates.head
    frame match {
      case FrameShape.WholePartition => new AggregateKernel.WholePartition(main)
      case FrameShape.RunningRows => new AggregateKernel.RunningRows(main)
      case FrameShape.RunningRange => new AggregateKernel.RunningRange(main, peers)
      case _: FrameShape.SlidingRows | _: FrameShape.SlidingRange =>
        val locator = FramePlanning.locator(frame, ops, peers)
        new AggregateKernel.Sliding(
          if (inSparkOrder) new InSparkOrder(locator, main)
          else new TwoStacks(locator, main, ops.aggregates.lift(1)))
    }
  }

  override def acrossTasks(spec: AggregateSpec, exactFloats: Boolean,
      maxHaloRows: Int): AcrossTasksRole = AggregatesAcrossTasks.role(spec, exactFloats)

  override def supportEntries: Seq[SupportEntry] =
    rules.map(r =>
      SupportEntry(r.names.mkString(", "), kind, FramePlanning.supported, r.description))
}
