package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.fastwindow.shims.ArithmeticShim
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._

import fastwindow.columns.ColumnLayout
import fastwindow.frames.{FrameLocator, PeerGroups}
import fastwindow.model.{FrameShape, RangeEdge, TimestampPlusMicros}
import fastwindow.ops.{FunctionOps, RangeEdgeRequest}

/**
 * Frames, for the families whose functions take one (aggregates, nth_value): which SQL frames
 * map to which [[FrameShape]], how users write them, what a sliding frame needs generated (its
 * RANGE edges) and its locator.
 */
object FramePlanning {

  // Lazy: the locators below are built in each operator's copy of this object
  // (exec.window.AlgorithmIsolation), which never describes frames.
  private lazy val slidingFrames =
    "ROWS BETWEEN any constant or unbounded bounds (moving, shrinking)"
  private lazy val rangeFrames =
    "RANGE BETWEEN any value offsets, CURRENT ROW or unbounded bounds " +
      s"(offsets on one ORDER BY key of type ${TypeSet.rangeKey.description})"

  /** Frames as users see them in the support table (sliding frames are families). */
  lazy val supported: Seq[String] = Seq(FrameShape.WholePartition.sql, FrameShape.RunningRows.sql,
    FrameShape.RunningRange.sql, slidingFrames, rangeFrames)

  /** The frame as a user writes it (Spark's own `sql` prints `1 PRECEDING` as `-1 FOLLOWING`). */
  def sql(frame: SpecifiedWindowFrame): String = {
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
          case d: Decimal if d.toDouble < 0 => s"${d.abs} PRECEDING"
          case v => s"${show(v)} FOLLOWING"
        }
      case e => e.sql
    }
    val kind = if (frame.frameType == RowFrame) "ROWS" else "RANGE"
    s"$kind BETWEEN ${bound(frame.lower)} AND ${bound(frame.upper)}"
  }

  /** The shape of `frame`, or why it is not supported (possibly an empty explanation). */
  def shape(frame: SpecifiedWindowFrame, orderSpec: Seq[SortOrder]): Either[String, FrameShape] =
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

  /** The RANGE edges with value offsets of a sliding frame, lower first. */
  def requests(frame: FrameShape, layout: ColumnLayout): Seq[RangeEdgeRequest] = frame match {
    case r: FrameShape.SlidingRange => r.edges.collect { case RangeEdge.Offset(bound) =>
        val key = r.key.get
        RangeEdgeRequest(bound, layout.bind(key.child), key)
      }
    case FrameShape.WholePartition | FrameShape.RunningRows | FrameShape.RunningRange |
        _: FrameShape.SlidingRows => Nil
  }

  def locator(frame: FrameShape, ops: FunctionOps, peers: PeerGroups): FrameLocator =
    FrameLocator(frame, ops.rangeEdges, peers)

  /**
   * The locator of `frame` as one whose edges move forward, whole and running frames included,
   * for kernels that add rows as a frame grows and remove them as it shrinks (holistic
   * aggregates): a whole frame is every row, a running one every row up to the current one.
   */
  def movingLocator(frame: FrameShape, ops: FunctionOps, peers: PeerGroups): FrameLocator = {
    val moving = frame match {
      case FrameShape.WholePartition => FrameShape.SlidingRows(None, None)
      case FrameShape.RunningRows => FrameShape.SlidingRows(None, Some(0))
      case FrameShape.RunningRange =>
        FrameShape.SlidingRange(RangeEdge.Unbounded, RangeEdge.CurrentRow, None, frame.sql)
      case sliding @ (_: FrameShape.SlidingRows | _: FrameShape.SlidingRange) => sliding
    }
    locator(moving, ops, peers)
  }

  private def rangeFrame(
      frame: SpecifiedWindowFrame,
      lower: Expression,
      upper: Expression,
      orderSpec: Seq[SortOrder]): Either[String, FrameShape] = {
    val key = orderSpec match {
      case Seq(only) => Some(only)
      case _ => None // Spark's analyzer allows value offsets with exactly one ORDER BY key
    }
    def edge(bound: Expression): Either[String, RangeEdge] = bound match {
      case UnboundedPreceding | UnboundedFollowing => Right(RangeEdge.Unbounded)
      case CurrentRow => Right(RangeEdge.CurrentRow)
      case offset => key match {
          case Some(k) if !TypeSet.rangeKey.contains(k.dataType) =>
            // The key is often an alias the analyzer made (_w0), so only its type is named.
            Left(s"its ORDER BY key has type ${k.dataType.sql} (supported RANGE offset key " +
              s"types: ${TypeSet.rangeKey.description})")
          case Some(k) => edgeBound(k, offset).map(RangeEdge.Offset).toRight(
              s"an offset of type ${offset.dataType.sql} on a key of type ${k.dataType.sql}")
          case None => Left("a RANGE offset without exactly one ORDER BY key")
        }
    }
    for (l <- edge(lower); u <- edge(upper)) yield {
      val valueKey = if (Seq(l, u).exists(_.isInstanceOf[RangeEdge.Offset])) key else None
      FrameShape.SlidingRange(l, u, valueKey, sql(frame))
    }
  }

  /**
   * The edge value of a RANGE offset, computed from the current row's key (`BoundReference(0)`)
   * by the expression Spark's WindowExec uses (`createBoundOrdering`): the offset's sign flipped
   * for DESC, then added with the key type's own addition. Built here, with the session's ANSI
   * mode and time zone, so the result and its overflow errors are Spark's (a timestamp plus less
   * than a day: the same sum without a zoned date-time per row). None for a type pair Spark does
   * not add this way.
   */
  private def edgeBound(key: SortOrder, offset: Expression): Option[Expression] = {
    val current = BoundReference(0, key.dataType, key.nullable)
    val signed = if (key.direction == Descending) UnaryMinus(offset) else offset
    val timeZone = Some(SQLConf.get.sessionLocalTimeZone)
    PartialFunction.condOpt((key.dataType, signed.dataType)) {
      case (DateType, IntegerType) => DateAdd(current, signed)
      case (DateType, _: YearMonthIntervalType) => DateAddYMInterval(current, signed)
      case (DateType, DayTimeIntervalType(DayTimeIntervalType.DAY, DayTimeIntervalType.DAY)) =>
        DateAdd(current, ExtractANSIIntervalDays(signed))
      case (TimestampType | TimestampNTZType, CalendarIntervalType) =>
        ArithmeticShim.timestampAddInterval(current, signed, timeZone)
      case (TimestampType | TimestampNTZType, _: YearMonthIntervalType) =>
        TimestampAddYMInterval(current, signed, timeZone)
      case (TimestampType | TimestampNTZType, _: DayTimeIntervalType) =>
        TimestampPlusMicros.shorterThanADay(current, signed)
          .getOrElse(ArithmeticShim.timestampAddInterval(current, signed, timeZone))
      case (d: DecimalType, _: DecimalType) => DecimalAddNoOverflowCheck(current, signed, d)
      case (a, b) if a == b && TypeSet.numeric.contains(a) => Add(current, signed)
      case (a: YearMonthIntervalType, b: YearMonthIntervalType) if a == b => Add(current, signed)
      case (a: DayTimeIntervalType, b: DayTimeIntervalType) if a == b => Add(current, signed)
    }
  }

  /** A ROWS bound as an offset from the current row (`Some(None)` = unbounded). */
  private def rowOffset(bound: Expression): Option[Option[Int]] = bound match {
    case UnboundedPreceding | UnboundedFollowing => Some(None)
    case CurrentRow => Some(Some(0))
    case e if e.foldable =>
      e.eval() match {
        case o: Int => Some(Some(o))
        case _ => None
      }
    case _ => None
  }
}
