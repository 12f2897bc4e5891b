package fastwindow.functions

import scala.util.Try

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.fastwindow.FloatingValues
import org.apache.spark.sql.fastwindow.shims.ClassicShim
import org.apache.spark.sql.types._

import fastwindow.frames.PeerGroups
import fastwindow.kernels.{Kernel, ModeKernel}
import fastwindow.model.FallbackReason
import fastwindow.ops.FunctionOps

/**
 * `mode` over every frame in O(n log d) per partition ([[ModeKernel]]); Spark counts each
 * frame's values again. Values are the same when their bytes are, as in Spark's hash map, so
 * floating values (whose NaNs and zeros Spark's map tells apart by their boxed equality), maps
 * and non-binary collations fall back.
 */
object ModeFamily extends BufferedFrameFamily[ModeSpec]("aggregate (holistic)") {

  override def sqlNames: Seq[String] = Seq("mode")

  private val inputs = s"${TypeSet.anyBufferable.description}, but for float, double and maps " +
    "(at any depth); strings of binary collations"
  private val signature = Signature(TypeSet(inputs, takes))

  private def takes(t: DataType): Boolean =
    TypeSet.anyBufferable.contains(t) && !FloatingValues.in(t) && !holdsMaps(t) &&
      ClassicShim.isBinaryStable(t)

  override def plan(call: WindowCall): Planned = call.function match {
    case AggregateExpression(mode: Mode, Complete, false, filter, _) =>
      Some(signature.of("mode", mode.child).filtered(filter).framed(call) { shape =>
        ModeSpec(call.ordinal, key(mode.child, filter), reverse(mode).map(!_),
          mode.child.dataType, shape)
      })
    case _ => None
  }

  private def holdsMaps(t: DataType): Boolean = t match {
    case _: MapType => true
    case a: ArrayType => holdsMaps(a.elementType)
    case s: StructType => s.fields.exists(f => holdsMaps(f.dataType))
    case _ => false
  }

  private def key(input: Expression, filter: Option[Expression]) = {
    val counted = (filter.toSeq :+ IsNotNull(input)).reduce(And)
    val value = CreateNamedStruct(Seq(Literal("v"), input))
    If(counted, value, Literal.create(null, value.dataType))
  }

  /**
   * Spark 4.0+'s order for ties: `Some(true)` the lowest value (`mode(x, true)`, `WITHIN GROUP
   * (ORDER BY x)`), `Some(false)` the highest; None (and always before 4.0) its hash map's.
   */
  private def reverse(mode: Mode): Option[Boolean] =
    Try(mode.getClass.getMethod("reverseOpt").invoke(mode).asInstanceOf[Option[Boolean]])
      .getOrElse(None)

  override def kernel(spec: ModeSpec, ops: FunctionOps, peers: PeerGroups): Kernel = {
    val fields = spec.key.dataType.asInstanceOf[StructType].map(_.dataType)
    new ModeKernel(
      FramePlanning.movingLocator(spec.frame, ops, _),
      peers,
      ops.values.head,
      spec.key.dataType,
      InterpretedOrdering.forSchema(fields),
      spec.tieBreak,
      spec.ordinal
    )
  }

  override def supportEntries: Seq[SupportEntry] = Seq(SupportEntry(
      "mode",
      kind,
      FramePlanning.supported,
      s"$inputs; FILTER (WHERE ...); ties broken by order (mode(x, true), WITHIN GROUP (ORDER BY " +
        "x)); a partition where plain mode(x) has a tie, which Spark breaks by its hash map's " +
        "order, is handed to Spark"
    ))
}
