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
object CollectListFamily extends BufferedFrameFamily[CollectListSpec] {

  override def kind: String = "aggregate (collection)"
  override def runsAggregates: Boolean = true
  override def sqlNames: Seq[String] = Seq("collect_list", "array_agg")

  override def plan(
      function: Expression,
      frame: SpecifiedWindowFrame,
      orderSpec: Seq[SortOrder],
      ordinal: Int): Option[Either[FallbackReason, CollectListSpec]] = function match {
    case AggregateExpression(list: CollectList, Complete, false, filter, _) =>
      val keepNulls = !ignoresNulls(list)
      Some(
        if (!TypeSet.anyBufferable.contains(list.child.dataType)) {
          Left(FallbackReason(
              FallbackReason.UnsupportedType,
              s"collect_list of type ${list.child.dataType.sql} is not supported yet " +
                s"(supported: ${TypeSet.anyBufferable.description})"
            ))
        } else if (filter.exists(f => !f.deterministic) || (filter.isDefined && keepNulls)) {
          Left(FallbackReason(FallbackReason.UnsupportedFunction,
              s"collect_list(...) ${if (keepNulls) "RESPECT NULLS " else ""}FILTER " +
                s"(WHERE ${filter.get.sql}) is not supported"))
        } else {
          val none = Literal.create(null, list.child.dataType)
          val input = filter.fold(list.child)(If(_, list.child, none))
          AggregateFamily.framed("collect_list", frame, orderSpec) { shape =>
            CollectListSpec(ordinal, input, keepNulls, list.dataType, shape)
          }
        })
    case _ => None
  }

  override def kernel(spec: CollectListSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    new CollectListKernel(FramePlanning.movingLocator(spec.frame, ops, peers), ops.values.head,
      spec.input.dataType, spec.keepNulls, spec.ordinal)

  /** Spark 4.3's collect_list and collect_set can keep nulls; earlier lines always drop them. */
  def ignoresNulls(collect: Collect[_]): Boolean =
    Try(collect.getClass.getMethod("ignoreNulls").invoke(collect).asInstanceOf[Boolean])
      .getOrElse(true)

  override def supportEntries: Seq[SupportEntry] = Seq(SupportEntry(
      "collect_list, array_agg", kind, FramePlanning.supported,
      s"${TypeSet.anyBufferable.description}; RESPECT NULLS (Spark 4.3); FILTER (WHERE ...)"))
}
