package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}

import fastwindow.columns.ColumnLayout
import fastwindow.frames.{NthRow, PeerGroups}
import fastwindow.kernels.{AggregateKernel, Kernel}
import fastwindow.model.{AcrossTasksRole, FallbackReason, FrameShape}
import fastwindow.ops.{FunctionOps, FunctionRequests, ValueRequest}

/**
 * nth_value over every frame: over whole and running frames with nth_value's own (update-only)
 * aggregate expressions, like any aggregate; over sliding frames by position ([[NthRow]]), as it
 * has no merge for the two stacks.
 */
object NthValueFamily extends FunctionFamily[NthValueSpec]("analytic") {

  override def sqlNames: Seq[String] = Seq("nth_value")

  private val signature = Signature(TypeSet.anyBufferable, Signature.InputTypes)

  override def plan(call: WindowCall): Planned = call.function match {
    case n: NthValue =>
      Some(signature.of("nth_value", n.input).framed(call)(NthValueSpec(call.ordinal, n, _)))
    case _ => None
  }

  override def requests(spec: NthValueSpec, layout: ColumnLayout): FunctionRequests =
    if (spec.frame.isSliding) {
      FunctionRequests(
        values = Seq(ValueRequest(layout.bind(spec.function.input), None, spec.resultType,
            spec.ordinal)),
        rangeEdges = FramePlanning.requests(spec.frame, layout))
    } else {
      FunctionRequests(aggregates = Seq(AggregateFamily.exact(spec.function, layout, spec.ordinal)))
    }

  override def kernel(spec: NthValueSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    if (spec.frame.isSliding) {
      val values = ops.values.head
      new AggregateKernel.NthValueSliding(
        new NthRow(FramePlanning.locator(spec.frame, ops, peers), spec.offset,
          spec.function.ignoreNulls, values),
        values)
    } else AggregateFamily.kernelOver(spec.frame, ops, peers)

  override def acrossTasks(spec: NthValueSpec, exactFloats: Boolean,
      maxHaloRows: Int): AcrossTasksRole = spec.frame match {
    // The state of the rows before a range is that of their first n rows (that count).
    case FrameShape.RunningRows | FrameShape.RunningRange | FrameShape.WholePartition =>
      if (spec.offset > maxHaloRows) AcrossTasksRole.InOneTask(s"keeps the first " +
        s"${spec.offset} rows of each range, more than " +
        s"spark.fastwindow.acrossTasks.maxHaloRows ($maxHaloRows)")
      else AcrossTasksRole.PrefixState
    // The n-th row from the current row (its peer group's first): at most n - 1 rows after it,
    // or with IGNORE NULLS the n-th with a value, however far.
    case shrinking if shrinking.shrinksFromCurrentRow =>
      if (spec.function.ignoreNulls) {
        AcrossTasksRole.HaloRows(0, spec.offset, nonNullOf = Some(spec.function.input))
      } else AcrossTasksRole.halo(0, spec.offset - 1)
    case other => AcrossTasksRole.overBoundedFrame(other)
  }

  override def supportEntries: Seq[SupportEntry] = Seq(SupportEntry("nth_value", kind,
      FramePlanning.supported, s"${TypeSet.anyBufferable.description}; any offset, IGNORE NULLS"))
}
