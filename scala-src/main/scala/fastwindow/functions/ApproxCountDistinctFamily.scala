package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.catalyst.util.HyperLogLogPlusPlusHelper
import org.apache.spark.sql.types._

import fastwindow.frames.PeerGroups
import fastwindow.kernels.{ApproxCountDistinctKernel, Kernel}
import fastwindow.model.FallbackReason
import fastwindow.ops.FunctionOps

/**
 * `approx_count_distinct` over every frame, with Spark's own sketch, so that its results are
 * Spark's exactly ([[ApproxCountDistinctKernel]]): the frame's registers are kept as rows enter
 * and leave it, where Spark sketches every frame again. Sketches of more than [[MaxWords]] words
 * (a relative standard deviation below about 0.009) fall back: their per-register counts would
 * take megabytes per task.
 */
object ApproxCountDistinctFamily
  extends BufferedFrameFamily[ApproxCountDistinctSpec]("aggregate (sketch)") {

  /** 2^14 registers: 4 MiB of counts. */
  val MaxWords: Int = (1 << 14) / HyperLogLogPlusPlusHelper.REGISTERS_PER_WORD + 1

  override def sqlNames: Seq[String] = Seq("approx_count_distinct")

  private val signature = Signature(TypeSet.anyBufferable)

  override def plan(call: WindowCall): Planned = call.function match {
    case AggregateExpression(hll: HyperLogLogPlusPlus, Complete, false, filter, _) =>
      val none = Literal.create(null, hll.child.dataType)
      Some(signature.of("approx_count_distinct", hll.child).check(tooLarge(hll))
          .filtered(filter).framed(call) {
            val input = filter.fold(hll.child)(If(_, hll.child, none))
            ApproxCountDistinctSpec(call.ordinal, input, hll.relativeSD, _)
          })
    case _ => None
  }

  private def tooLarge(hll: HyperLogLogPlusPlus): Option[FallbackReason] =
    if (hll.hllppHelper.numWords <= MaxWords) None
    else Some(FallbackReason(
        FallbackReason.UnsupportedArgument,
        s"approx_count_distinct with relativeSD ${hll.relativeSD}: sketches of more than " +
          s"${MaxWords * HyperLogLogPlusPlusHelper.REGISTERS_PER_WORD} registers are left to Spark"
      ))

  override def kernel(spec: ApproxCountDistinctSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    new ApproxCountDistinctKernel(FramePlanning.movingLocator(spec.frame, ops, peers),
      ops.values.head, spec.value.dataType, new HyperLogLogPlusPlusHelper(spec.relativeSD),
      spec.ordinal)

  override def supportEntries: Seq[SupportEntry] = Seq(SupportEntry(
      "approx_count_distinct",
      kind,
      FramePlanning.supported,
      s"${TypeSet.anyBufferable.description}; FILTER (WHERE ...); relativeSD down to about " +
        "0.009 (2^14 registers); results are Spark's exactly (its own sketch)"
    ))
}
