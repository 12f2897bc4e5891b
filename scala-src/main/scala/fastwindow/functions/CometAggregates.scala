package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.types._

import fastwindow.model.{BesideComet, FilteredAggregate, FrameShape, RangeEdge}
import fastwindow.model.BesideComet.{CometFaster, FastwindowFaster, NotNative}

/**
 * Which aggregates over which frames DataFusion Comet's native window runs, and which of those it
 * runs faster than fastwindow: the aggregate and nth_value families' fact beside Comet.
 *
 * Comet 1.2.0 runs count, sum, avg, min, max, first and last over ROWS and RANGE frames, RANGE
 * offsets on numeric keys only; sums and averages of decimals over sliding frames (and averages of
 * decimals of 28 digits or more over any frame), min and max of
 * strings, binary and nested values, first, last and nth_value over RANGE offsets, FILTER and
 * every other aggregate go back to Spark's WindowExec. Of what it runs, fastwindow was measured
 * faster on moving and RANGE-offset counts, sums, averages, minima and maxima, and on first,
 * last and nth_value over frames from the partition's start (docs/performance.md).
 */
object CometAggregates {

  def of(function: DeclarativeAggregate, frame: FrameShape): BesideComet = function match {
    case _: FilteredAggregate => NotNative("Comet runs window aggregates with FILTER on Spark")
    case _: Sum | _: Average if !numeric(function.children.head.dataType) =>
      NotNative(s"Comet's ${function.prettyName} sums numbers only")
    case _: Sum | _: Average
        if function.children.head.dataType.isInstanceOf[DecimalType] && frame.isSliding =>
      NotNative(s"Comet runs ${function.prettyName} of decimals over sliding frames on Spark")
    case _: Average if wideDecimal(function.children.head.dataType) =>
      NotNative("Comet runs avg of decimals of 28 digits or more on Spark")
    case _: Min | _: Max if !orderable(function.children.head.dataType) =>
      NotNative(s"Comet's ${function.prettyName} compares numbers, dates and timestamps only")
    case _: Count | _: Sum | _: Average | _: Min | _: Max =>
      ofFrame(frame, function.prettyName) match {
        case CometFaster if slidesByRowsOrValues(frame) =>
          FastwindowFaster(s"moving ${function.prettyName} measured faster on fastwindow")
        case other => other
      }
    case _: First | _: Last => ofValue(frame, function.prettyName)
    case other => NotNative(s"Comet runs ${other.prettyName} over windows on Spark")
  }

  /**
   * first, last and nth_value: run natively over the frames of [[ofFrame]], but measured faster
   * on fastwindow over frames from the partition's start (a forward fill over large partitions
   * most of all: Comet's time grows with the frame), without PARTITION BY too.
   */
  def ofValue(frame: FrameShape, name: String): BesideComet = ofFrame(frame, name) match {
    case CometFaster if fromPartitionStart(frame) =>
      FastwindowFaster(s"$name over a frame from the partition's start measured faster on " +
          "fastwindow", overOneTask = true)
    case other => other
  }

  /** What Comet makes of `frame` for a function it runs natively over other frames. */
  def ofFrame(frame: FrameShape, name: String): BesideComet = frame match {
    case r: FrameShape.SlidingRange if r.edges.exists(_.isInstanceOf[RangeEdge.Offset]) =>
      val key = r.key.map(_.child.dataType)
      if (name != "count" && name != "sum" && name != "avg" && name != "min" && name != "max") {
        NotNative(s"Comet runs $name over RANGE offsets on Spark")
      } else if (!key.exists(numeric)) {
        NotNative(s"Comet's RANGE offsets are numeric: not ${key.map(_.catalogString).orNull}")
      } else CometFaster
    case _ => CometFaster
  }

  /** Frames Comet's retracting accumulators slide over and fastwindow's two stacks beat. */
  private def slidesByRowsOrValues(frame: FrameShape): Boolean = frame match {
    case FrameShape.SlidingRows(Some(_), Some(_)) => true
    case r: FrameShape.SlidingRange => r.edges.exists(_.isInstanceOf[RangeEdge.Offset])
    case _ => false
  }

  private def fromPartitionStart(frame: FrameShape): Boolean = frame match {
    case FrameShape.RunningRows | FrameShape.RunningRange => true
    case FrameShape.SlidingRows(None, Some(_)) => true
    case _ => false
  }

  private def numeric(t: DataType): Boolean = t match {
    case _: DecimalType => true
    case ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType => true
    case _ => false
  }

  private def wideDecimal(t: DataType): Boolean = t match {
    case d: DecimalType => d.precision >= 28
    case _ => false
  }

  private def orderable(t: DataType): Boolean =
    numeric(t) || t == DateType || t == TimestampType || t == TimestampNTZType
}
