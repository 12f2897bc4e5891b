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
object RowByRowFamily extends FunctionFamily[RowByRowSpec] {

  override def kind: String = "analytic"
  override def runsAggregates: Boolean = false
  override def sqlNames: Seq[String] = Seq("counter_diff")

  override def plan(
      function: Expression,
      frame: SpecifiedWindowFrame,
      orderSpec: Seq[SortOrder],
      ordinal: Int): Option[Either[FallbackReason, RowByRowSpec]] = function match {
    case f: AggregateWindowFunction =>
      def unsupported(why: String, id: String = FallbackReason.UnsupportedFunction) =
        Some(Left(FallbackReason(id, s"${f.prettyName} $why")))
      val badInput =
        f.children.find(c => !c.foldable && !TypeSet.anyBufferable.contains(c.dataType))
      if (f.isInstanceOf[SizeBasedWindowFunction]) {
        unsupported("reads its partition's size, which is not supported yet")
      } else if (!f.deterministic) {
        unsupported("is not deterministic")
      } else if (FramePlanning.shape(frame, orderSpec) != Right(FrameShape.RunningRows)) {
        unsupported(
          s"over the frame ${FramePlanning.sql(frame)} is not supported " +
            s"(supported: ${FrameShape.RunningRows.sql}, its own frame)",
          FallbackReason.UnsupportedFrame
        )
      } else badInput match {
        case Some(c) => Some(Left(FallbackReason(
                FallbackReason.UnsupportedType,
                s"${f.prettyName} of type ${c.dataType.sql} is not supported " +
                  s"(supported input types: ${TypeSet.anyBufferable.description})"
              )))
        case None => Some(Right(RowByRowSpec(ordinal, f)))
      }
    case _ => None
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
