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
object ApproxPercentileFamily
  extends BufferedFrameFamily[ApproxPercentileSpec]("aggregate (sketch)") {

  private val signature = Signature(TypeSet(
      "tinyint to bigint, float, double, decimal, date, timestamp, timestamp_ntz, ANSI intervals",
      {
        case _: NumericType | DateType | TimestampType | TimestampNTZType => true
        case _: YearMonthIntervalType | _: DayTimeIntervalType => true
        case _ => false
      }
    ))

  override def sqlNames: Seq[String] = Seq("percentile_approx", "approx_percentile")

  override def plan(call: WindowCall): Planned = call.function match {
    case AggregateExpression(a: ApproximatePercentile, Complete, false, filter, _) =>
      Some(signature.of("percentile_approx", a.child).check(notConstant(a)).filtered(filter)
          .framed(call) {
            val percentages = a.percentageExpression.eval() match {
              case d: Double => Seq(d)
              case array: ArrayData => array.toDoubleArray().toSeq
            }
            val accuracy = a.accuracyExpression.eval().asInstanceOf[Number].longValue()
            val scalar = a.withNewChildren(Seq(a.child, Literal(0.5), a.accuracyExpression))
              .asInstanceOf[ApproximatePercentile]
            val none = Literal.create(null, a.child.dataType)
            val input = filter.fold(a.child)(If(_, a.child, none))
            val asArray = a.percentageExpression.dataType.isInstanceOf[ArrayType]
            shape =>
              ApproxPercentileSpec(call.ordinal, input, percentages, accuracy, scalar, asArray,
                a.dataType, shape)
          })
    case _ => None
  }

  private def notConstant(a: ApproximatePercentile): Option[FallbackReason] =
    if (a.percentageExpression.foldable && a.accuracyExpression.foldable) None
    else Some(FallbackReason(FallbackReason.UnsupportedArgument,
        "percentile_approx with a percentage or accuracy that is not a constant"))

  override def kernel(spec: ApproxPercentileSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    new ApproxPercentileKernel(
      FramePlanning.movingLocator(spec.frame, ops, _),
      peers,
      ops.values.head,
      spec.value.dataType,
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
      s"${signature.types.description}; one or an array of percentages; FILTER (WHERE ...); " +
        "where the result is provably Spark's: frames of fewer than accuracy / 2 values (default " +
        "accuracy 10000) without NaN or -0.0; other partitions are handed to Spark"
    ))
}
