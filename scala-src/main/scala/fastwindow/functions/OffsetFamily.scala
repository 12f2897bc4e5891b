package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.types.DataTypeUtils

import fastwindow.columns.ColumnLayout
import fastwindow.frames.PeerGroups
import fastwindow.kernels.{Kernel, OffsetKernel}
import fastwindow.model.{AcrossTasksRole, FallbackReason}
import fastwindow.ops.{FunctionOps, FunctionRequests, ValueRequest}

/** lead and lag, any constant offset, default and IGNORE NULLS: see [[OffsetKernel]]. */
object OffsetFamily extends FunctionFamily[OffsetSpec] {

  override def kind: String = "offset"
  override def runsAggregates: Boolean = false
  override def sqlNames: Seq[String] = Seq("lead", "lag")

  override def plan(
      function: Expression,
      frame: SpecifiedWindowFrame,
      orderSpec: Seq[SortOrder],
      ordinal: Int): Option[Either[FallbackReason, OffsetSpec]] = function match {
    case f: FrameLessOffsetWindowFunction => Some(offsetSpec(f, ordinal))
    case _ => None
  }

  private def offsetSpec(
      f: FrameLessOffsetWindowFunction, ordinal: Int): Either[FallbackReason, OffsetSpec] = {
    val name = f.prettyName
    val offset = if (f.offset.foldable) f.offset.eval() else null
    val default = Option(f.default).filterNot(d => d.foldable && d.eval() == null)
    offset match {
      case _: Int if !TypeSet.anyBufferable.contains(f.input.dataType) =>
        Left(FallbackReason(FallbackReason.UnsupportedType,
            s"$name of type ${f.input.dataType.sql} is not supported"))
      // Nullability of nested fields may differ (ARRAY(9) is ARRAY<INT NOT NULL>): same values.
      case _: Int
          if default.exists(d =>
            !DataTypeUtils.equalsIgnoreNullability(d.dataType, f.input.dataType)) =>
        Left(FallbackReason(
            FallbackReason.UnsupportedType,
            s"$name with a default of type ${default.get.dataType.sql} for an input of type " +
              s"${f.input.dataType.sql} is not supported"
          ))
      case o: Int => Right(OffsetSpec(ordinal, name, f.input, o, default, f.ignoreNulls))
      case _ => Left(FallbackReason(FallbackReason.UnsupportedArgument,
            s"$name with a non-constant offset ${f.offset.sql} is not supported"))
    }
  }

  override def requests(spec: OffsetSpec, layout: ColumnLayout): FunctionRequests =
    FunctionRequests(values = Seq(ValueRequest(
        layout.bind(spec.input), spec.default.map(layout.bind), spec.resultType, spec.ordinal)))

  override def kernel(spec: OffsetSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    new OffsetKernel(spec.offset, spec.ignoreNulls, ops.values.head)

  override def acrossTasks(spec: OffsetSpec, exactFloats: Boolean,
      maxHaloRows: Int): AcrossTasksRole = {
    val halo = AcrossTasksRole.halo(spec.offset, spec.offset)
    if (spec.ignoreNulls && spec.offset != 0) halo.copy(nonNullOf = Some(spec.input)) else halo
  }

  override def supportEntries: Seq[SupportEntry] = sqlNames.map { f =>
    SupportEntry(f, kind, Seq(WindowSupport.OwnFrame),
      s"${TypeSet.anyBufferable.description}; any offset, default, IGNORE NULLS")
  }
}
