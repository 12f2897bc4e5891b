package fastwindow.functions

import scala.util.Try

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.types._

import fastwindow.frames.PeerGroups
import fastwindow.kernels.{CollectListKernel, Kernel}
import fastwindow.model.FallbackReason
import fastwindow.ops.FunctionOps

/** `collect_list` and `array_agg` over every frame ([[CollectListKernel]]). */
object CollectListFamily extends BufferedFrameFamily[CollectListSpec]("aggregate (collection)") {

  override def sqlNames: Seq[String] = Seq("collect_list", "array_agg")

  private val signature = Signature(TypeSet.anyBufferable)

  /** A FILTER is taken where nulls are dropped: the kernel reads rows it leaves out as nulls. */
  override def plan(call: WindowCall): Planned = call.function match {
    case AggregateExpression(list: CollectList, Complete, false, filter, _) =>
      val keepNulls = !ignoresNulls(list)
      val shownAs = s"collect_list(...)${if (keepNulls) " RESPECT NULLS" else ""}"
      Some(signature.of("collect_list", list.child).filtered(filter, shownAs, keepNulls)
          .framed(call) {
            val none = Literal.create(null, list.child.dataType)
            val input = filter.fold(list.child)(If(_, list.child, none))
            shape => CollectListSpec(call.ordinal, input, keepNulls, list.dataType, shape)
          })
    case _ => None
  }

  override def kernel(spec: CollectListSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    new CollectListKernel(FramePlanning.movingLocator(spec.frame, ops, peers), ops.values.head,
      spec.value.dataType, spec.keepNulls, spec.ordinal)

  /** Spark 4.3's collect_list and collect_set can keep nulls; earlier lines always drop them. */
  def ignoresNulls(collect: Collect[_]): Boolean =
    Try(collect.getClass.getMethod("ignoreNulls").invoke(collect).asInstanceOf[Boolean])
      .getOrElse(true)

  override def supportEntries: Seq[SupportEntry] = Seq(SupportEntry(
      "collect_list, array_agg", kind, FramePlanning.supported,
      s"${TypeSet.anyBufferable.description}; RESPECT NULLS (Spark 4.3); FILTER (WHERE ...)"))
}
