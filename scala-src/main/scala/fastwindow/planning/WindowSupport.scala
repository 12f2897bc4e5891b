package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.types._

import fastwindow.buffer.ColumnType
import fastwindow.explain.Json

/**
 * Decides whether fastwindow can run a logical `Window` and, if so, what it runs.
 *
 * [[check]] returns either a [[WindowPlan]] or one precise reason naming the function, the frame
 * and the type that are not supported (and the config key that would change the outcome, when one
 * exists). If any expression of a node is unsupported the whole node stays on Spark's `WindowExec`:
 * fastwindow never splits a node, so a query's semantics never depend on which part ran where.
 *
 * The supported set is written as data ([[rankingFunctions]], [[aggregates]], [[frames]]) that
 * drives both the checks and [[supportMatrixJson]], so the README's support table cannot drift
 * from the code.
 */
object WindowSupport {

  /** A named set of data types, described for users. */
  final case class TypeSet(description: String, contains: DataType => Boolean)

  private val numeric = TypeSet(
    "tinyint, smallint, int, bigint, float, double, decimal",
    {
      case ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType => true
      case _: DecimalType => true
      case _ => false
    })

  private val orderable = TypeSet(
    "numeric, boolean, string (UTF8_BINARY collation), binary, date, timestamp, timestamp_ntz",
    {
      case s: StringType => s.collationId == StringType.collationId
      case BooleanType | BinaryType | DateType | TimestampType | TimestampNTZType => true
      case other => numeric.contains(other)
    })

  /** Order key types of RANGE frames with value offsets (those Spark accepts, but intervals). */
  private val rangeKeyTypes = TypeSet(
    s"${numeric.description}, date, timestamp, timestamp_ntz",
    {
      case DateType | TimestampType | TimestampNTZType => true
      case other => numeric.contains(other)
    })

  private val anyBufferable = TypeSet(
    "any type except variant, user-defined and object types",
    ColumnType.isSupported)

  /**
   * An aggregate evaluated through its declarative expressions.
   *
   * @param name      the name reasons use; `aliases` are the other SQL names of the same function
   *                  (shown in the support table)
   * @param inputs    the types its (non-constant) inputs may have
   * @param matches   whether an aggregate is this one (after Spark's rewrites: bool_and is min)
   * @param typed     the inputs to check, each with its type set (default: every child, `inputs`)
   * @param inputsDescription how the support table describes the inputs (default: `inputs`)
   * @param kind      "aggregate" (accepts FILTER), or "analytic" for window-only functions
   */
  final case class AggregateRule(
      name: String,
      inputs: TypeSet,
      matches: DeclarativeAggregate => Boolean,
      aliases: Seq[String] = Nil,
      typed: Option[DeclarativeAggregate => Seq[(Expression, TypeSet)]] = None,
      inputsDescription: Option[String] = None,
      kind: String = "aggregate") {
    def typedInputs(agg: DeclarativeAggregate): Seq[(Expression, TypeSet)] =
      typed.fold(agg.children.map(_ -> inputs))(_(agg))
    def names: Seq[String] = name +: aliases
    def description: String = inputsDescription.getOrElse(inputs.description) +
      (if (kind == "aggregate") "; FILTER (WHERE ...)" else "")
  }

  /** Variance and standard deviation read their input as double (Spark casts it). */
  private val numericAsDouble = numeric.copy(description = s"${numeric.description} (as double)")

  private val byOrdering: DeclarativeAggregate => Seq[(Expression, TypeSet)] = {
    case m: MaxMinBy => Seq(m.valueExpr -> anyBufferable, m.orderingExpr -> orderable)
    case other => other.children.map(_ -> anyBufferable)
  }
  private val byOrderingDescription =
    s"value: ${anyBufferable.description}; ordering: ${orderable.description}"

  val aggregates: Seq[AggregateRule] = Seq(
    AggregateRule("count", anyBufferable, _.isInstanceOf[Count]),
    AggregateRule("sum", numeric, _.isInstanceOf[Sum]),
    AggregateRule("avg", numeric, _.isInstanceOf[Average]),
    // Spark rewrites bool_and/every into min and bool_or/some/any into max of a boolean.
    AggregateRule("min", orderable, _.isInstanceOf[Min], aliases = Seq("bool_and", "every")),
    AggregateRule("max", orderable, _.isInstanceOf[Max], aliases = Seq("bool_or", "some", "any")),
    AggregateRule("stddev_samp", numericAsDouble, _.isInstanceOf[StddevSamp],
      aliases = Seq("stddev", "std")),
    AggregateRule("stddev_pop", numericAsDouble, _.isInstanceOf[StddevPop]),
    AggregateRule("var_samp", numericAsDouble, _.isInstanceOf[VarianceSamp],
      aliases = Seq("variance")),
    AggregateRule("var_pop", numericAsDouble, _.isInstanceOf[VariancePop]),
    // any_value is first (Spark rewrites it); IGNORE NULLS is a flag of the function.
    AggregateRule("first", anyBufferable, _.isInstanceOf[First],
      aliases = Seq("first_value", "any_value"),
      inputsDescription = Some(s"${anyBufferable.description}; IGNORE NULLS")),
    AggregateRule("last", anyBufferable, _.isInstanceOf[Last], aliases = Seq("last_value"),
      inputsDescription = Some(s"${anyBufferable.description}; IGNORE NULLS")),
    AggregateRule("min_by", anyBufferable, _.isInstanceOf[MinBy], typed = Some(byOrdering),
      inputsDescription = Some(byOrderingDescription)),
    AggregateRule("max_by", anyBufferable, _.isInstanceOf[MaxBy], typed = Some(byOrdering),
      inputsDescription = Some(byOrderingDescription)),
    AggregateRule("nth_value", anyBufferable, _.isInstanceOf[NthValue],
      inputsDescription = Some(s"${anyBufferable.description}; any offset, IGNORE NULLS"),
      kind = "analytic"))

  val rankingFunctions: Seq[String] =
    Seq("row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile")

  val offsetFunctions: Seq[String] = Seq("lead", "lag")

  private val slidingFrames = "ROWS BETWEEN any constant or unbounded bounds (moving, shrinking)"
  private val rangeFrames = "RANGE BETWEEN any value offsets, CURRENT ROW or unbounded bounds " +
    s"(offsets on one ORDER BY key of type ${rangeKeyTypes.description})"

  /** Frames as users see them in the support table (sliding frames are families). */
  val frames: Seq[String] = Seq(FrameShape.WholePartition.sql, FrameShape.RunningRows.sql,
    FrameShape.RunningRange.sql, slidingFrames, rangeFrames)

  /** Result of a support check: a plan, or the reason fastwindow leaves the node to Spark. */
  type Outcome = Either[String, WindowPlan]

  def check(
      windowExpressions: Seq[NamedExpression],
      orderSpec: Seq[SortOrder]): Outcome = {
    val functions = windowExpressions.flatMap(_.collect { case w: WindowExpression => w })
      .foldLeft(Vector.empty[WindowExpression]) { (acc, w) =>
        if (acc.exists(_.semanticEquals(w))) acc else acc :+ w
      }
    val specs = functions.zipWithIndex.map { case (w, ordinal) => functionSpec(w, ordinal) }
    val shapeProblem = windowExpressions.collectFirst(Function.unlift(outputProblem))
    (shapeProblem ++ specs.collect { case Left(reason) => reason }).headOption match {
      case Some(reason) => Left(reason)
      case None =>
        val outputs = windowExpressions.map { e =>
          e.asInstanceOf[Alias].child.transform {
            case w: WindowExpression =>
              BoundReference(functions.indexWhere(_.semanticEquals(w)), w.dataType, w.nullable)
          }
        }
        val plan = WindowPlan(specs.collect { case Right(s) => s }, outputs, orderSpec)
        peerKeyProblem(plan).toLeft(plan)
    }
  }

  /**
   * A window expression must compute its value from window functions alone: an alias of one
   * function, or of an expression over functions (DecimalAggregates rewrites avg and sum of small
   * decimals that way).
   */
  private def outputProblem(e: NamedExpression): Option[String] = e match {
    case Alias(child, _) =>
      val withoutFunctions = child.transform {
        case w: WindowExpression => Literal.create(null, w.dataType)
      }
      if (withoutFunctions.references.isEmpty) None
      else Some(s"window expression ${e.sql} also reads input columns, which is not supported yet")
    case other => Some(s"window expression ${other.sql} is not an aliased window function")
  }

  private def functionSpec(w: WindowExpression, ordinal: Int): Either[String, FunctionSpec] =
    w.windowSpec.frameSpecification match {
      case frame: SpecifiedWindowFrame =>
        windowFunction(w.windowFunction, frame, w.windowSpec.orderSpec, ordinal)
      case other => Left(s"window frame $other is not resolved")
    }

  private def windowFunction(
      function: Expression,
      frame: SpecifiedWindowFrame,
      orderSpec: Seq[SortOrder],
      ordinal: Int): Either[String, FunctionSpec] = function match {
    case _: RowNumber => Right(RankingSpec(ordinal, RankingKind.RowNumber, function.dataType))
    case _: Rank => Right(RankingSpec(ordinal, RankingKind.Rank, function.dataType))
    case _: DenseRank => Right(RankingSpec(ordinal, RankingKind.DenseRank, function.dataType))
    case _: PercentRank => Right(RankingSpec(ordinal, RankingKind.PercentRank, function.dataType))
    case _: CumeDist => Right(RankingSpec(ordinal, RankingKind.CumeDist, function.dataType))
    case n: NTile =>
      n.buckets.eval() match {
        case b: Int if b > 0 => Right(RankingSpec(ordinal, RankingKind.NTile(b), n.dataType))
        case other => Left(s"ntile with buckets $other is not supported")
      }
    case f: FrameLessOffsetWindowFunction => offsetFunction(f, ordinal)
    // nth_value is a window function with a frame, evaluated like an (update-only) aggregate.
    case n: NthValue => aggregate(n, frame, ordinal, filter = None, orderSpec)
    case AggregateExpression(agg, mode, isDistinct, filter, _) =>
      if (mode != Complete) Left(s"aggregate ${agg.prettyName} in mode $mode is not supported")
      else if (isDistinct) Left(s"${agg.prettyName}(DISTINCT ...) is not supported")
      else aggregate(agg, frame, ordinal, filter, orderSpec)
    case other =>
      Left(s"window function ${other.prettyName} is not supported yet " +
        s"(supported: ${(rankingFunctions ++ offsetFunctions ++ aggregates.map(_.name))
          .mkString(", ")})")
  }

  private def offsetFunction(
      f: FrameLessOffsetWindowFunction,
      ordinal: Int): Either[String, FunctionSpec] = {
    val name = f.prettyName
    val offset = if (f.offset.foldable) f.offset.eval() else null
    val default = Option(f.default).filterNot(d => d.foldable && d.eval() == null)
    offset match {
      case o: Int if !ColumnType.isSupported(f.input.dataType) =>
        Left(s"$name of type ${f.input.dataType.sql} is not supported")
      // Nullability of nested fields may differ (ARRAY(9) is ARRAY<INT NOT NULL>): same values.
      case o: Int if default.exists(d => !DataTypeUtils.equalsIgnoreNullability(d.dataType, f.input.dataType)) =>
        Left(s"$name with a default of type ${default.get.dataType.sql} for an input of type " +
          s"${f.input.dataType.sql} is not supported")
      case o: Int => Right(OffsetSpec(ordinal, f.input, o, default, f.ignoreNulls))
      case other => Left(s"$name with a non-constant offset ${f.offset.sql} is not supported")
    }
  }

  private def aggregate(
      agg: AggregateFunction,
      frame: SpecifiedWindowFrame,
      ordinal: Int,
      filter: Option[Expression],
      orderSpec: Seq[SortOrder]): Either[String, FunctionSpec] = {
    val name = agg.prettyName
    val rule = agg match {
      case d: DeclarativeAggregate => aggregates.find(_.matches(d))
      case _ => None
    }
    rule match {
      case None =>
        Left(s"aggregate function $name is not supported yet " +
          s"(supported: ${aggregates.map(_.name).mkString(", ")})")
      case Some(r) =>
        val declarative = agg.asInstanceOf[DeclarativeAggregate]
        val badInput = r.typedInputs(declarative).collectFirst {
          case (c, types) if !c.foldable && !types.contains(c.dataType) => c
        }
        val badFilter = filter.filterNot(f => f.dataType == BooleanType && f.deterministic)
        (badInput, badFilter) match {
          case (Some(bad), _) =>
            Left(s"$name of type ${bad.dataType.sql} is not supported " +
              s"(supported input types: ${r.description})")
          case (None, Some(f)) =>
            Left(s"$name(...) FILTER (WHERE ${f.sql}) is not supported")
          case (None, None) =>
            frameShape(frame, orderSpec) match {
              case Right(shape) =>
                val function = filter.fold(declarative)(FilteredAggregate(declarative, _))
                Right(AggregateSpec(ordinal, function, shape))
              case Left(why) =>
                Left(s"$name over the frame ${frameSql(frame)} is not supported yet" +
                  (if (why.isEmpty) "" else s": $why") +
                  s" (supported frames: ${frames.mkString("; ")})")
            }
        }
    }
  }

  /** The frame as a user writes it (Spark's own `sql` prints `1 PRECEDING` as `-1 FOLLOWING`). */
  def frameSql(frame: SpecifiedWindowFrame): String = {
    def bound(b: Expression): String = b match {
      case UnboundedPreceding => "UNBOUNDED PRECEDING"
      case UnboundedFollowing => "UNBOUNDED FOLLOWING"
      case CurrentRow => "CURRENT ROW"
      case e if e.foldable =>
        def show(value: Any): String = e.dataType match {
          case _: YearMonthIntervalType | _: DayTimeIntervalType | CalendarIntervalType =>
            Literal.create(value, e.dataType).sql
          case _ => String.valueOf(value)
        }
        e.eval() match {
          case n: Number if n.doubleValue() < 0 => s"${show(UnaryMinus(e).eval())} PRECEDING"
          case d: org.apache.spark.sql.types.Decimal if d.toDouble < 0 => s"${d.abs} PRECEDING"
          case v => s"${show(v)} FOLLOWING"
        }
      case e => e.sql
    }
    val kind = if (frame.frameType == RowFrame) "ROWS" else "RANGE"
    s"$kind BETWEEN ${bound(frame.lower)} AND ${bound(frame.upper)}"
  }

  private def frameShape(
      frame: SpecifiedWindowFrame,
      orderSpec: Seq[SortOrder]): Either[String, FrameShape] =
    (frame.frameType, frame.lower, frame.upper) match {
      case (_, UnboundedPreceding, UnboundedFollowing) => Right(FrameShape.WholePartition)
      case (RowFrame, UnboundedPreceding, CurrentRow) => Right(FrameShape.RunningRows)
      case (RangeFrame, UnboundedPreceding, CurrentRow) => Right(FrameShape.RunningRange)
      case (RowFrame, lower, upper) =>
        (for (l <- rowOffset(lower); u <- rowOffset(upper)) yield FrameShape.SlidingRows(l, u))
          .toRight("")
      case (RangeFrame, lower, upper) => rangeFrame(frame, lower, upper, orderSpec)
      case _ => Left("")
    }

  private def rangeFrame(
      frame: SpecifiedWindowFrame,
      lower: Expression,
      upper: Expression,
      orderSpec: Seq[SortOrder]): Either[String, FrameShape] = {
    val key = orderSpec match {
      case Seq(only) => Some(only)
      case _ => None  // Spark's analyzer allows value offsets with exactly one ORDER BY key
    }
    def edge(bound: Expression): Either[String, RangeEdge] = bound match {
      case UnboundedPreceding | UnboundedFollowing => Right(RangeEdge.Unbounded)
      case CurrentRow => Right(RangeEdge.CurrentRow)
      case offset => key match {
        case Some(k) if !rangeKeyTypes.contains(k.dataType) =>
          // The key is often an alias the analyzer made (_w0), so only its type is named.
          Left(s"its ORDER BY key has type ${k.dataType.sql} (supported RANGE offset key " +
            s"types: ${rangeKeyTypes.description})")
        case Some(k) => rangeEdgeBound(k, offset).map(RangeEdge.Offset).toRight(
          s"an offset of type ${offset.dataType.sql} on a key of type ${k.dataType.sql}")
        case None => Left("a RANGE offset without exactly one ORDER BY key")
      }
    }
    for (l <- edge(lower); u <- edge(upper)) yield {
      val valueKey = if (Seq(l, u).exists(_.isInstanceOf[RangeEdge.Offset])) key else None
      FrameShape.SlidingRange(l, u, valueKey, frameSql(frame))
    }
  }

  /**
   * The edge value of a RANGE offset, computed from the current row's key (`BoundReference(0)`)
   * by the expression Spark's WindowExec uses (`createBoundOrdering`): the offset's sign flipped
   * for DESC, then added with the key type's own addition. Built here, with the session's ANSI
   * mode and time zone, so the result and its overflow errors are Spark's. None for a type pair
   * Spark does not add this way.
   */
  private def rangeEdgeBound(key: SortOrder, offset: Expression): Option[Expression] = {
    val current = BoundReference(0, key.dataType, key.nullable)
    val signed = if (key.direction == Descending) UnaryMinus(offset) else offset
    val timeZone = Some(org.apache.spark.sql.internal.SQLConf.get.sessionLocalTimeZone)
    PartialFunction.condOpt((key.dataType, signed.dataType)) {
      case (DateType, IntegerType) => DateAdd(current, signed)
      case (DateType, _: YearMonthIntervalType) => DateAddYMInterval(current, signed)
      case (DateType, DayTimeIntervalType(DayTimeIntervalType.DAY, DayTimeIntervalType.DAY)) =>
        DateAdd(current, ExtractANSIIntervalDays(signed))
      case (TimestampType | TimestampNTZType, CalendarIntervalType) =>
        TimestampAddInterval(current, signed, timeZone)
      case (TimestampType | TimestampNTZType, _: YearMonthIntervalType) =>
        TimestampAddYMInterval(current, signed, timeZone)
      case (TimestampType | TimestampNTZType, _: DayTimeIntervalType) =>
        TimestampAddInterval(current, signed, timeZone)
      case (d: DecimalType, _: DecimalType) => DecimalAddNoOverflowCheck(current, signed, d)
      case (a, b) if a == b && numeric.contains(a) => Add(current, signed)
    }
  }

  /** A ROWS bound as an offset from the current row (`Some(None)` = unbounded). */
  private def rowOffset(bound: Expression): Option[Option[Int]] = bound match {
    case UnboundedPreceding | UnboundedFollowing => Some(None)
    case CurrentRow => Some(Some(0))
    case e if e.foldable => e.eval() match {
      case o: Int => Some(Some(o))
      case _ => None
    }
    case _ => None
  }

  /** Peers are found by comparing order keys, which needs an ordering fastwindow implements. */
  private def peerKeyProblem(plan: WindowPlan): Option[String] =
    if (!plan.needsPeers) None
    else plan.orderSpec.find(o => !orderable.contains(o.dataType)).map { o =>
      val user = plan.functions.find(_.needsPeers).map(describe).getOrElse("")
      s"$user needs peers of ORDER BY ${o.child.sql} of type ${o.dataType.sql}, " +
        s"which is not supported yet (supported order key types: ${orderable.description})"
    }

  private def describe(f: FunctionSpec): String = f match {
    case r: RankingSpec => r.kind.toString.toLowerCase
    case a: AggregateSpec => s"${a.function.prettyName} over ${a.frame.sql}"
    case o: OffsetSpec => if (o.offset >= 0) "lead" else "lag"
  }

  /** The support table, as JSON: one object per function with its frames and input types. */
  def supportMatrixJson: String = {
    def entry(function: String, kind: String, frames: Seq[String], inputs: String) = Json.obj(
      "function" -> Json.str(function),
      "kind" -> Json.str(kind),
      "frames" -> Json.arr(frames),
      "inputs" -> Json.str(inputs))
    val ownFrame = Seq("its own (set by Spark)")
    val ranking = rankingFunctions.map { f =>
      val inputs = if (f == "row_number" || f == "ntile") "none"
        else s"ORDER BY keys of type: ${orderable.description}"
      entry(f, "ranking", ownFrame, inputs)
    }
    val offsets = offsetFunctions.map { f =>
      entry(f, "offset", ownFrame, s"${anyBufferable.description}; any offset, default, IGNORE NULLS")
    }
    val aggs = aggregates.map(a => entry(a.names.mkString(", "), a.kind, frames, a.description))
    (ranking ++ offsets ++ aggs).mkString("[\n  ", ",\n  ", "\n]")
  }
}

/**
 * `agg(...) FILTER (WHERE filter)`: the aggregate, updated only with the rows where `filter` is
 * true. This is how Spark's own window operator applies a filter (each update expression becomes
 * `If(filter, update, buffer)`), so results are Spark's; partial buffers (over filtered rows)
 * merge with the aggregate's own merge expressions. Its children are the aggregate's followed by
 * the filter, so rewriting the inputs to columns reaches both.
 */
final case class FilteredAggregate(agg: DeclarativeAggregate, filter: Expression)
  extends DeclarativeAggregate {
  override def children: Seq[Expression] = agg.children :+ filter
  override def dataType: DataType = agg.dataType
  override def nullable: Boolean = agg.nullable
  override def prettyName: String = agg.prettyName
  override def defaultResult: Option[Literal] = agg.defaultResult
  override lazy val aggBufferAttributes: Seq[AttributeReference] = agg.aggBufferAttributes
  override lazy val inputAggBufferAttributes: Seq[AttributeReference] = agg.inputAggBufferAttributes
  override lazy val initialValues: Seq[Expression] = agg.initialValues
  override lazy val updateExpressions: Seq[Expression] =
    agg.updateExpressions.zip(agg.aggBufferAttributes).map { case (u, b) => If(filter, u, b) }
  override lazy val mergeExpressions: Seq[Expression] = agg.mergeExpressions
  override lazy val evaluateExpression: Expression = agg.evaluateExpression
  override protected def withNewChildrenInternal(
      newChildren: IndexedSeq[Expression]): FilteredAggregate =
    copy(agg = agg.withNewChildren(newChildren.init).asInstanceOf[DeclarativeAggregate],
      filter = newChildren.last)
}
