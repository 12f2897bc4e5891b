package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}

import fastwindow.columns.ColumnLayout
import fastwindow.frames.PeerGroups
import fastwindow.kernels.{AggregateKernel, Kernel}
import fastwindow.model.{FallbackReason, FrameShape}
import fastwindow.ops.{FunctionOps, FunctionRequests}

/**
 * Window functions whose frame is ROWS UNBOUNDED PRECEDING AND CURRENT ROW, set by Spark, and
 * which Spark evaluates with their own declarative expressions, one update and one evaluation per
 * row (`AggregateWindowFunction`s other than the ranking functions and nth_value, which have
 * families of their own): Spark 4.3's `counter_diff`, with or without a start time, and such
 * functions of other libraries. The same expressions run here, over the same rows in the same
 * order ([[AggregateKernel.RunningRows]]), so results and errors are Spark's; O(n).
 *
 * Functions that read their partition's size (`SizeBasedWindowFunction`), are not deterministic,
 * or come with another frame fall back with a reason.
 */
object RowByRowFamily extends FunctionFamily[RowByRowSpec]("analytic") {

  override def sqlNames: Seq[String] = Seq("counter_diff")

  private val signature = Signature(TypeSet.anyBufferable, Signature.InputTypes)

  override def plan(call: WindowCall): Planned = call.function match {
    case f: AggregateWindowFunction =>
      Some(signature.of(f.prettyName, f.children.filterNot(_.foldable): _*)
          .checkFirst(refusal(f, call)).planned(RowByRowSpec(call.ordinal, f)))
    case _ => None
  }

  /** Why `f` is not run row by row over its own frame, if it is not. */
  private def refusal(f: AggregateWindowFunction, call: WindowCall): Option[FallbackReason] = {
    def unsupported(why: String, id: String = FallbackReason.UnsupportedFunction) =
      Some(FallbackReason(id, s"${f.prettyName} $why"))
    if (f.isInstanceOf[SizeBasedWindowFunction]) {
      unsupported("reads its partition's size, which is not supported yet")
    } else if (!f.deterministic) {
      unsupported("is not deterministic")
    } else if (FramePlanning.shape(call.frame, call.orderSpec) != Right(FrameShape.RunningRows)) {
      unsupported(
        s"over the frame ${FramePlanning.sql(call.frame)} is not supported " +
          s"(supported: ${FrameShape.RunningRows.sql}, its own frame)",
        FallbackReason.UnsupportedFrame
      )
    } else None
  }

  override def requests(spec: RowByRowSpec, layout: ColumnLayout): FunctionRequests =
    FunctionRequests(aggregates = Seq(AggregateFamily.exact(spec.function, layout, spec.ordinal)))

  override def kernel(spec: RowByRowSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    new AggregateKernel.RunningRows(ops.aggregates.head)

  override def supportEntries: Seq[SupportEntry] = Seq(SupportEntry(
      "counter_diff (Spark 4.3), and other row-by-row window functions",
      kind,
      Seq(WindowSupport.OwnFrame),
      s"${TypeSet.anyBufferable.description} (Spark's own checks)"
    ))
}
