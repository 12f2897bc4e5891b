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

  private val anyBufferable = TypeSet(
    "any type except variant, user-defined and object types",
    ColumnType.isSupported)

  /** Aggregates evaluated through their declarative expressions, with their input types. */
  final case class AggregateRule(name: String, inputs: TypeSet, matches: DeclarativeAggregate => Boolean)

  val aggregates: Seq[AggregateRule] = Seq(
    AggregateRule("count", anyBufferable, _.isInstanceOf[Count]),
    AggregateRule("sum", numeric, _.isInstanceOf[Sum]),
    AggregateRule("avg", numeric, _.isInstanceOf[Average]),
    AggregateRule("min", orderable, _.isInstanceOf[Min]),
    AggregateRule("max", orderable, _.isInstanceOf[Max]))

  val rankingFunctions: Seq[String] =
    Seq("row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile")

  val offsetFunctions: Seq[String] = Seq("lead", "lag")

  /** Frames as users see them in the support table (sliding ROWS frames are a family). */
  val frames: Seq[String] = Seq(FrameShape.WholePartition.sql, FrameShape.RunningRows.sql,
    FrameShape.RunningRange.sql, "ROWS BETWEEN any constant or unbounded bounds (moving, shrinking)")

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
      case frame: SpecifiedWindowFrame => windowFunction(w.windowFunction, frame, ordinal)
      case other => Left(s"window frame $other is not resolved")
    }

  private def windowFunction(
      function: Expression,
      frame: SpecifiedWindowFrame,
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
    case AggregateExpression(agg, mode, isDistinct, filter, _) =>
      if (mode != Complete) Left(s"aggregate ${agg.prettyName} in mode $mode is not supported")
      else if (isDistinct) Left(s"${agg.prettyName}(DISTINCT ...) is not supported")
      else if (filter.isDefined) {
        Left(s"${agg.prettyName}(...) FILTER (WHERE ...) is not supported yet")
      } else aggregate(agg, frame, ordinal)
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
      ordinal: Int): Either[String, FunctionSpec] = {
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
        agg.children.filterNot(_.foldable).find(c => !r.inputs.contains(c.dataType)) match {
          case Some(bad) =>
            Left(s"$name of type ${bad.dataType.sql} is not supported " +
              s"(supported input types: ${r.inputs.description})")
          case None =>
            frameShape(frame) match {
              case Some(shape) =>
                Right(AggregateSpec(ordinal, agg.asInstanceOf[DeclarativeAggregate], shape))
              case None =>
                Left(s"$name over the frame ${frameSql(frame)} is not supported yet " +
                  s"(supported frames: ${frames.mkString("; ")})")
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
        e.eval() match {
          case n: Number if n.doubleValue() < 0 => s"${UnaryMinus(e).eval()} PRECEDING"
          case d: org.apache.spark.sql.types.Decimal if d.toDouble < 0 => s"${d.abs} PRECEDING"
          case v => s"$v FOLLOWING"
        }
      case e => e.sql
    }
    val kind = if (frame.frameType == RowFrame) "ROWS" else "RANGE"
    s"$kind BETWEEN ${bound(frame.lower)} AND ${bound(frame.upper)}"
  }

  private def frameShape(frame: SpecifiedWindowFrame): Option[FrameShape] =
    (frame.frameType, frame.lower, frame.upper) match {
      case (_, UnboundedPreceding, UnboundedFollowing) => Some(FrameShape.WholePartition)
      case (RowFrame, UnboundedPreceding, CurrentRow) => Some(FrameShape.RunningRows)
      case (RangeFrame, UnboundedPreceding, CurrentRow) => Some(FrameShape.RunningRange)
      case (RowFrame, lower, upper) =>
        for (l <- rowOffset(lower); u <- rowOffset(upper)) yield FrameShape.SlidingRows(l, u)
      case _ => None
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
    val aggs = aggregates.map(a => entry(a.name, "aggregate", frames, a.inputs.description))
    (ranking ++ offsets ++ aggs).mkString("[\n  ", ",\n  ", "\n]")
  }
}
