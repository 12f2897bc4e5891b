package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.types.DataTypeUtils

import fastwindow.columns.ColumnLayout
import fastwindow.frames.PeerGroups
import fastwindow.kernels.{Kernel, OffsetKernel}
import fastwindow.model.{AcrossTasksRole, FallbackReason}
import fastwindow.ops.{FunctionOps, FunctionRequests, ValueRequest}

/** lead and lag, any constant offset, default and IGNORE NULLS: see [[OffsetKernel]]. */
object OffsetFamily extends FunctionFamily[OffsetSpec]("offset") {

  override def sqlNames: Seq[String] = Seq("lead", "lag")

  private val signature = Signature(TypeSet.anyBufferable, Signature.Unlisted)

  override def plan(call: WindowCall): Planned = call.function match {
    case f: FrameLessOffsetWindowFunction =>
      val offset = if (f.offset.foldable) f.offset.eval() else null
      val default = Option(f.default).filterNot(d => d.foldable && d.eval() == null)
      Some(signature.of(f.prettyName, f.input).checkFirst(offsetReason(f, offset))
          .check(defaultReason(f, default)).planned {
            OffsetSpec(call.ordinal, f.prettyName, f.input, offset.asInstanceOf[Int], default,
              f.ignoreNulls)
          })
    case _ => None
  }

  private def offsetReason(f: FrameLessOffsetWindowFunction, offset: Any): Option[FallbackReason] =
    if (offset.isInstanceOf[Int]) None
    else Some(FallbackReason(FallbackReason.UnsupportedArgument,
        s"${f.prettyName} with a non-constant offset ${f.offset.sql} is not supported"))

  // Nullability of nested fields may differ (ARRAY(9) is ARRAY<INT NOT NULL>): same values.
  private def defaultReason(
      f: FrameLessOffsetWindowFunction,
      default: Option[Expression]): Option[FallbackReason] =
    default.filterNot(d => DataTypeUtils.equalsIgnoreNullability(d.dataType, f.input.dataType))
      .map { d =>
        FallbackReason(
          FallbackReason.UnsupportedType,
          s"${f.prettyName} with a default of type ${d.dataType.sql} for an input of type " +
            s"${f.input.dataType.sql} is not supported"
        )
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
