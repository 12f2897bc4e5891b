package fastwindow.functions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types._

import fastwindow.frames.PeerGroups
import fastwindow.kernels.{Kernel, PercentileKernel}
import fastwindow.model.FallbackReason
import fastwindow.ops.FunctionOps

/**
 * Exact percentiles over every frame, in O(n log n) per partition whatever the frame's width
 * ([[PercentileKernel]]); Spark sorts each frame. Numeric inputs; ANSI intervals, decimals of
 * more than 18 digits and frequencies that are not constants fall back.
 */
object PercentileFamily extends BufferedFrameFamily[PercentileSpec]("aggregate (holistic)") {

  private val signature = Signature(
    TypeSet(
      "tinyint, smallint, int, bigint, float, double, decimal (up to 18 digits)",
      {
        case ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType => true
        case d: DecimalType => d.precision <= Decimal.MAX_LONG_DIGITS
        case _ => false
      }
    ),
    Signature.InputTypesYet
  )

  override def sqlNames: Seq[String] = Seq("percentile", "median", "percentile_cont",
    "percentile_disc")

  override def plan(call: WindowCall): Planned = call.function match {
    case AggregateExpression(p: PercentileBase, Complete, false, filter, _) =>
      val name = p.prettyName
      // How many times each row counts: Spark skips rows whose frequency is null or 0.
      val weight = Some(p.frequencyExpression).filter(_.foldable).map(_.eval() match {
        case null => 0L
        case n: Number => n.longValue()
      })
      Some(signature.of(name, p.child).check(percentageReason(name, p))
          .check(weightReason(name, weight))
          .check(lerpReason(name)).filtered(filter, s"$name(...)").framed(call) {
            val percentages = p.percentageExpression.eval() match {
              case d: Double => Seq(d)
              case a: ArrayData => a.toDoubleArray().toSeq
            }
            val (discrete, legacy) = p match {
              case d: PercentileDisc => (true, d.legacyCalculation)
              case _ => (false, false)
            }
            // Rows a FILTER excludes, and all rows when they count zero times, are nulls to it.
            val none = Literal.create(null, p.child.dataType)
            val input =
              if (weight.contains(0L)) none else filter.fold(p.child)(If(_, p.child, none))
            val asArray = p.percentageExpression.dataType.isInstanceOf[ArrayType]
            shape =>
              PercentileSpec(call.ordinal, name, input, math.max(weight.get, 1L), percentages,
                asArray, lerpFromLower.get, discrete, legacy, p.reverse, shape)
          })
    case _ => None
  }

  /** Why a percentage that is not a constant is left to Spark (its analyzer refuses it first). */
  private def percentageReason(name: String, p: PercentileBase): Option[FallbackReason] =
    if (p.percentageExpression.foldable) None
    else Some(FallbackReason(FallbackReason.UnsupportedArgument,
        s"$name with a percentage that is not a constant"))

  /** Why a frequency (its constant `weight`, if it is one) is left to Spark, if it is. */
  private def weightReason(name: String, weight: Option[Long]): Option[FallbackReason] =
    if (weight.isEmpty) {
      Some(FallbackReason(FallbackReason.UnsupportedArgument,
          s"$name with a frequency that is not a constant is not supported yet"))
    } else if (weight.exists(_ < 0L)) {
      Some(FallbackReason(FallbackReason.UnsupportedArgument,
          s"$name with a negative frequency fails in Spark; fastwindow leaves it to Spark"))
    } else None

  private def lerpReason(name: String): Option[FallbackReason] =
    if (lerpFromLower.isDefined) None
    else Some(FallbackReason(FallbackReason.UnsupportedFunction,
        s"$name: this Spark interpolates percentiles in a way fastwindow does not reproduce"))

  override def kernel(spec: PercentileSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    new PercentileKernel(
      FramePlanning.movingLocator(spec.frame, ops, peers),
      ops.values.head,
      spec.value.dataType,
      spec.weight,
      spec.percentages.toArray,
      spec.lerpFromLower,
      spec.discrete,
      spec.legacyDiscrete,
      spec.reverse,
      spec.asArray,
      spec.ordinal
    )

  /**
   * How the running Spark interpolates between two neighbouring values: `lower + f * (higher -
   * lower)` (Spark 4.3), or `(1 - f) * lower + f * higher` written as `(ceil - position) * lower +
   * (position - floor) * higher` (earlier lines); the two differ in the last bit. Spark's own
   * percentile answers, once per JVM, for two values where they differ; if it matches neither,
   * percentiles stay on Spark.
   */
  private lazy val lerpFromLower: Option[Boolean] = {
    val (a, b) = (-3.44, 12.704)
    val probe = new Percentile(BoundReference(0, DoubleType, nullable = false), Literal(0.5))
    val buffer = probe.createAggregationBuffer()
    Seq(a, b).foreach(v => probe.update(buffer, InternalRow(v)))
    probe.eval(buffer) match {
      case r: Double if r == a + 0.5 * (b - a) => Some(true)
      case r: Double if r == 0.5 * a + 0.5 * b => Some(false)
      case _ => None
    }
  }

  override def supportEntries: Seq[SupportEntry] = Seq(SupportEntry(
      "percentile, median, percentile_cont, percentile_disc",
      kind,
      FramePlanning.supported,
      s"${signature.types.description}; one or an array of percentages; constant frequency; " +
        "FILTER (WHERE ...); median, percentile_cont and percentile_disc (WITHIN GROUP, ASC or " +
        "DESC) only over whole partitions, as Spark allows"
    ))
}
