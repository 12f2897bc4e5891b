package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types._

import fastwindow.frames.PeerGroups
import fastwindow.kernels.{ApproxPercentileKernel, Kernel}
import fastwindow.model.FallbackReason
import fastwindow.ops.FunctionOps

/**
 * `percentile_approx` / `approx_percentile` over every frame, where its result is provably
 * Spark's ([[ApproxPercentileKernel]]): frames of fewer than about `accuracy / 2` values, whose
 * sketch keeps every value, so Spark's answer is an order statistic. Other partitions (larger
 * frames, NaN or -0.0 values) are handed to Spark, whose sketch then depends on the values'
 * order.
 */
object ApproxPercentileFamily extends BufferedFrameFamily[ApproxPercentileSpec] {

  private val inputTypes = TypeSet(
    "tinyint to bigint, float, double, decimal, date, timestamp, timestamp_ntz, ANSI intervals",
    {
      case _: NumericType | DateType | TimestampType | TimestampNTZType => true
      case _: YearMonthIntervalType | _: DayTimeIntervalType => true
      case _ => false
    }
  )

  override def kind: String = "aggregate (sketch)"
  override def runsAggregates: Boolean = true
  override def sqlNames: Seq[String] = Seq("percentile_approx", "approx_percentile")

  override def plan(
      function: Expression,
      frame: SpecifiedWindowFrame,
      orderSpec: Seq[SortOrder],
      ordinal: Int): Option[Either[FallbackReason, ApproxPercentileSpec]] = function match {
    case AggregateExpression(a: ApproximatePercentile, Complete, false, filter, _) =>
      val t = a.child.dataType
      Some(
        if (!inputTypes.contains(t)) {
          Left(FallbackReason(FallbackReason.UnsupportedType,
              s"percentile_approx of type ${t.sql} is not supported yet (supported: " +
                s"${inputTypes.description})"))
        } else if (!a.percentageExpression.foldable || !a.accuracyExpression.foldable) {
          Left(FallbackReason(FallbackReason.UnsupportedArgument,
              "percentile_approx with a percentage or accuracy that is not a constant"))
        } else if (filter.exists(f => !f.deterministic)) {
          Left(FallbackReason(FallbackReason.UnsupportedFunction,
              s"percentile_approx FILTER (WHERE ${filter.get.sql}) is not supported"))
        } else {
          val percentages = a.percentageExpression.eval() match {
            case d: Double => Seq(d)
            case array: ArrayData => array.toDoubleArray().toSeq
          }
          val accuracy = a.accuracyExpression.eval().asInstanceOf[Number].longValue()
          val scalar = a.withNewChildren(Seq(a.child, Literal(0.5), a.accuracyExpression))
            .asInstanceOf[ApproximatePercentile]
          val input = filter.fold(a.child)(If(_, a.child, Literal.create(null, t)))
          AggregateFamily.framed("percentile_approx", frame, orderSpec) { shape =>
            ApproxPercentileSpec(ordinal, input, percentages, accuracy, scalar,
              asArray = a.percentageExpression.dataType.isInstanceOf[ArrayType], a.dataType,
              shape)
          }
        })
    case _ => None
  }

  override def kernel(spec: ApproxPercentileSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    new ApproxPercentileKernel(
      FramePlanning.movingLocator(spec.frame, ops, _),
      peers,
      ops.values.head,
      spec.input.dataType,
      spec.percentages.toArray,
      spec.accuracy,
      spec.scalar,
      spec.asArray,
      spec.ordinal
    )

  override def supportEntries: Seq[SupportEntry] = Seq(SupportEntry(
      "percentile_approx, approx_percentile",
      kind,
      FramePlanning.supported,
      s"${inputTypes.description}; one or an array of percentages; FILTER (WHERE ...); where the " +
        "result is provably Spark's: frames of fewer than accuracy / 2 values (default accuracy " +
        "10000) without NaN or -0.0; other partitions are handed to Spark"
    ))
}
