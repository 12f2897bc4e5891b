package fastwindow.functions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.fastwindow.FloatingValues
import org.apache.spark.sql.fastwindow.shims.ClassicShim
import org.apache.spark.sql.types._

import fastwindow.columns.ColumnLayout
import fastwindow.frames.PeerGroups
import fastwindow.kernels.{DistinctCountKernel, Kernel}
import fastwindow.model.{FallbackReason, FrameShape, FunctionSpec, StreamBounds}
import fastwindow.ops.{FunctionOps, FunctionRequests, ValueRequest}

/**
 * `size(collect_set(input) [FILTER (WHERE filter)] OVER w)` seen as one window function: the
 * number of distinct values of a frame. Only planning sees it ([[DistinctCountFamily.fuse]]); the
 * operator's expressions keep Spark's form, which Spark's window evaluation runs when a partition
 * is handed over.
 *
 * @param ignoreNulls whether a null input is left out of the set (always, before Spark 4.3)
 */
final case class DistinctCountOf(input: Expression, filter: Option[Expression], ignoreNulls: Boolean)
    extends Expression with Unevaluable {
  override def children: Seq[Expression] = input +: filter.toSeq
  override def dataType: DataType = IntegerType
  override def nullable: Boolean = false
  override def prettyName: String = "size(collect_set)"
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): Expression =
    copy(input = c.head, filter = filter.map(_ => c(1)))
}

/**
 * @param key null for rows the set leaves out, else a struct of the value (so that a null value
 *            the set takes is a non-null key), floating values normalized
 */
final case class DistinctCountSpec(ordinal: Int, key: Expression, frame: FrameShape)
    extends FunctionSpec {
  override def resultType: DataType = IntegerType
  override def needsPeers: Boolean = frame.needsPeers
  override def inputs: Seq[Expression] = Seq(key).filterNot(_.foldable) ++ (frame match {
    case r: FrameShape.SlidingRange => r.key.map(_.child)
    case _ => None
  })
  /** Value ids are those of the whole partition, so it is buffered. */
  override def streamBounds: Option[StreamBounds] = None
  override def readsRowsOnWrite: Boolean = true
  override def describe: String = s"size(collect_set(...)) over ${frame.sql}"
}

/**
 * Distinct counts over every frame in O(n) per partition ([[DistinctCountKernel]]): users'
 * `size(collect_set(x))` (the optimizer rule `fastwindow.planning.SetSizeIntoWindow` moves the
 * `size` next to its window function) and `count(DISTINCT ...) OVER`, which
 * `fastwindow.planning.DistinctWindowAggregates` rewrites into that form. Spark builds each
 * frame's set.
 *
 * The count is Spark's set's: values are the same when their bytes are. Non-binary collations
 * fall back; so do floating values where this Spark's `collect_set` keeps NaNs apart or -0.0
 * apart from 0.0 (before Spark 4.2), unless they come normalized in a struct, as the DISTINCT
 * rewrite gives them (then every line's set compares them as bytes).
 */
object DistinctCountFamily extends FunctionFamily[DistinctCountSpec] {

  override def kind: String = "aggregate (distinct count)"
  override def sqlNames: Seq[String] = Seq("size(collect_set)", "count(DISTINCT)")

  override def fuse(expression: Expression): Expression = expression.transformUp {
    case size: Size => size.child match {
      case w @ WindowExpression(AggregateExpression(set: CollectSet, Complete, false, filter, _), _) =>
        val ignoreNulls = CollectListFamily.ignoresNulls(set)
        w.copy(windowFunction = DistinctCountOf(set.child, filter, ignoreNulls))
      case _ => size
    }
  }

  override def plan(
      function: Expression,
      frame: SpecifiedWindowFrame,
      orderSpec: Seq[SortOrder],
      ordinal: Int): Option[Either[FallbackReason, DistinctCountSpec]] = function match {
    case DistinctCountOf(input, filter, ignoreNulls) =>
      val name = "size(collect_set)"
      Some(
        if (!TypeSet.anyBufferable.contains(input.dataType) ||
            !ClassicShim.isBinaryStable(input.dataType)) {
          Left(FallbackReason(FallbackReason.UnsupportedType,
            s"$name of type ${input.dataType.sql} is not supported yet (supported: " +
              s"${TypeSet.anyBufferable.description}; strings of binary collations)"))
        } else if (!floatsCompareAsBytes(input)) {
          Left(FallbackReason(FallbackReason.UnsupportedType,
            s"$name of ${input.dataType.sql}: this Spark's collect_set keeps NaNs (and -0.0 " +
              "and 0.0) apart as fastwindow does not; count(DISTINCT ...) OVER is supported"))
        } else if (filter.exists(f => !f.deterministic)) {
          Left(FallbackReason(FallbackReason.UnsupportedFunction,
            s"$name FILTER (WHERE ${filter.get.sql}) is not supported"))
        } else {
          AggregateFamily.framed(name, frame, orderSpec) { shape =>
            DistinctCountSpec(ordinal, key(input, filter, ignoreNulls), shape)
          }
        })
    case _ => None
  }

  private def key(input: Expression, filter: Option[Expression], ignoreNulls: Boolean) = {
    val counted = (filter.toSeq ++ Some(IsNotNull(input)).filter(_ => ignoreNulls))
      .reduceOption(And).getOrElse(Literal(true))
    val value = CreateNamedStruct(Seq(Literal("v"), FloatingValues.normalized(input)))
    If(counted, value, Literal.create(null, value.dataType))
  }

  override def requests(spec: DistinctCountSpec, layout: ColumnLayout): FunctionRequests =
    FunctionRequests(
      values = Seq(ValueRequest(layout.bind(spec.key), None, spec.key.dataType, 0)),
      rangeEdges = FramePlanning.requests(spec.frame, layout))

  override def kernel(spec: DistinctCountSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    new DistinctCountKernel(FramePlanning.movingLocator(spec.frame, ops, peers),
      ops.values.head, spec.key.dataType, spec.ordinal)

  /**
   * Whether this Spark's set compares `input`'s values as fastwindow does (their bytes, floating
   * values normalized): where its set normalizes them itself, or where they come normalized in a
   * struct, as the DISTINCT rewrite gives them (a set of structs compares them as bytes or
   * NaN-aware, the same once normalized).
   */
  private def floatsCompareAsBytes(input: Expression): Boolean =
    !FloatingValues.in(input.dataType) || setNormalizesFloats || normalizedStruct(input)

  private def normalizedStruct(e: Expression): Boolean = e match {
    case If(_, value, Literal(null, _)) => normalizedStruct(value)
    case CreateNamedStruct(fields) => fields.grouped(2).forall { case Seq(_, value) =>
      !FloatingValues.in(value.dataType) || value.foldable ||
        value.isInstanceOf[KnownFloatingPointNormalized]
    }
    case _ => false
  }

  /**
   * Whether this Spark's collect_set holds one NaN and one zero (of either sign) at top level and
   * in structs; asked once per JVM of Spark's own CollectSet.
   */
  private lazy val setNormalizesFloats: Boolean = {
    val doubles = Seq(Double.NaN, java.lang.Double.longBitsToDouble(0x7ff8000000000001L), -0.0, 0.0)
    def setSize(dataType: DataType, values: Seq[Any]): Int = {
      val set = new CollectSet(BoundReference(0, dataType, nullable = true))
      val buffer = set.createAggregationBuffer()
      values.foreach(v => set.update(buffer, InternalRow(v)))
      set.eval(buffer).asInstanceOf[ArrayData].numElements()
    }
    setSize(DoubleType, doubles) == 2 &&
      setSize(new StructType().add("v", DoubleType), doubles.map(InternalRow(_))) == 2
  }

  override def supportEntries: Seq[SupportEntry] = Seq(SupportEntry(
    "size(collect_set(...)), count(DISTINCT ...)", kind, FramePlanning.supported,
    s"${TypeSet.anyBufferable.description}; strings of binary collations; FILTER (WHERE ...); " +
      "count(DISTINCT ...) of one or more columns (an extension: Spark rejects it, fastwindow " +
      "rewrites it); floating values of size(collect_set) from Spark 4.3 (earlier sets keep " +
      "NaNs apart)"))
}
