package fastwindow.functions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.fastwindow.FloatingValues
import org.apache.spark.sql.fastwindow.shims.ClassicShim
import org.apache.spark.sql.types._

import fastwindow.frames.{DistinctSums, PeerGroups}
import fastwindow.kernels.{DistinctValuesKernel, Kernel}
import fastwindow.model.{DistinctFold, FallbackReason}
import fastwindow.ops.FunctionOps

/**
 * Distinct counts over every frame in O(n) per partition ([[DistinctValuesKernel]]): users'
 * `size(collect_set(x))` (the optimizer rule `fastwindow.planning.SetSizeIntoWindow` moves the
 * `size` next to its window function) and `count(DISTINCT ...) OVER`, which
 * `fastwindow.planning.DistinctWindowAggregates` rewrites into that form; and distinct sums and
 * averages (`sum/avg(DISTINCT x) OVER`, rewritten to folds over the set) in O(n) or O(n log n).
 * Spark builds each frame's set.
 *
 * The count is Spark's set's: values are the same when their bytes are. Non-binary collations
 * fall back; so do floating values where this Spark's `collect_set` keeps NaNs apart or -0.0
 * apart from 0.0 (before Spark 4.2), unless they come normalized in a struct, as the DISTINCT
 * rewrite gives them (then every line's set compares them as bytes).
 */
object DistinctAggregateFamily
  extends BufferedFrameFamily[DistinctAggregateSpec]("aggregate (distinct values)") {

  override def sqlNames: Seq[String] =
    Seq("size(collect_set)", "count(DISTINCT)", "sum(DISTINCT)", "avg(DISTINCT)")

  override def fuse(expression: Expression): Expression = expression.transformUp {
    case size: Size => ofSet(size.child, None).getOrElse(size)
    case fold: ArrayAggregate =>
      fold.getTagValue(DistinctFold.Aggregate).flatMap(f => ofSet(fold.argument, Some(f)))
        .getOrElse(fold)
  }

  private def ofSet(set: Expression, fold: Option[DeclarativeAggregate]) = set match {
    case w @ WindowExpression(AggregateExpression(set: CollectSet, Complete, false, filter, _),
          _) =>
      val ignoreNulls = CollectListFamily.ignoresNulls(set)
      Some(w.copy(windowFunction = DistinctAggregateOf(set.child, filter, ignoreNulls, fold)))
    case _ => None
  }

  private val signature = Signature(TypeSet(
      s"${TypeSet.anyBufferable.description}; strings of binary collations",
      t => TypeSet.anyBufferable.contains(t) && ClassicShim.isBinaryStable(t)))

  /** The FILTER first; a fold checks its values itself ([[foldReason]]), a count their type. */
  override def plan(call: WindowCall): Planned = call.function match {
    case d @ DistinctAggregateOf(input, filter, ignoreNulls, fold) =>
      val checks =
        if (fold.isDefined) signature.of(d.prettyName).check(foldReason(d))
        else signature.of(d.prettyName, input).check(floatsReason(d))
      Some(checks.checkFirst(Signature.filterReason(d.prettyName, filter)).framed(call) {
        DistinctAggregateSpec(call.ordinal, key(input, filter, ignoreNulls), fold, _)
      })
    case _ => None
  }

  /** Why the values of a count are left to Spark, if they are: see [[floatsCompareAsBytes]]. */
  private def floatsReason(d: DistinctAggregateOf): Option[FallbackReason] =
    if (floatsCompareAsBytes(d.input)) None
    else Some(FallbackReason(
        FallbackReason.UnsupportedType,
        s"${d.prettyName} of ${d.input.dataType.sql}: this Spark's collect_set keeps NaNs (and " +
          "-0.0 and 0.0) apart as fastwindow does not; count(DISTINCT ...) OVER is supported"
      ))

  /**
   * Why a fold is left to Spark, if it is. A fold runs where fastwindow's buffer is Spark's (a sum
   * and a count) and its sums cannot differ from Spark's: bigint sums are exact (a partition
   * where a sum might overflow, which under ANSI or TRY addition depends on the order of Spark's
   * set, is handed to Spark); decimal sums are exact where they cannot overflow (up to 28 digits
   * in). Floating values must come normalized (-0.0 and 0.0 one value), as the DISTINCT rewrite
   * gives them; NaNs are left apart by some lines' sets, which a sum does not see.
   */
  private def foldReason(d: DistinctAggregateOf): Option[FallbackReason] = {
    val f = d.fold.get
    val sumType = f.aggBufferAttributes.find(_.name == "sum").map(_.dataType)
    def unsupported(why: String) = Some(FallbackReason(FallbackReason.UnsupportedType,
        s"${d.prettyName} of ${d.input.dataType.sql}: $why"))
    if (!f.aggBufferAttributes.forall(a => Seq("sum", "count", "isEmpty").contains(a.name)) ||
      !sumType.exists(t => t == LongType || t == DoubleType || t.isInstanceOf[DecimalType])) {
      unsupported("only sums of numbers are supported (tinyint to bigint, float, double, decimal)")
    } else if (d.input.dataType.isInstanceOf[DecimalType] &&
      d.input.dataType.asInstanceOf[DecimalType].precision > DecimalType.MAX_PRECISION - 10) {
      unsupported(s"decimals of more than ${DecimalType.MAX_PRECISION - 10} digits may overflow")
    } else if (FloatingValues.in(d.input.dataType) && !normalized(d.input)) {
      unsupported("the values are not normalized (-0.0 and 0.0 apart)")
    } else None
  }

  private def key(input: Expression, filter: Option[Expression], ignoreNulls: Boolean) = {
    val counted = (filter.toSeq ++ Some(IsNotNull(input)).filter(_ => ignoreNulls))
      .reduceOption(And).getOrElse(Literal(true))
    val value = CreateNamedStruct(Seq(Literal("v"), FloatingValues.normalized(input)))
    If(counted, value, Literal.create(null, value.dataType))
  }

  override def kernel(spec: DistinctAggregateSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    new DistinctValuesKernel(FramePlanning.movingLocator(spec.frame, ops, peers),
      ops.values.head, spec.key.dataType, spec.fold.map(fold), spec.ordinal)

  /** The kernel's view of `f`: its buffer, filled from the distinct sum and count. */
  private def fold(f: DeclarativeAggregate): DistinctValuesKernel.Fold = {
    val buffer = f.aggBufferAttributes
    val result = f.evaluateExpression.transform {
      case a: AttributeReference if buffer.exists(_.exprId == a.exprId) =>
        val i = buffer.indexWhere(_.exprId == a.exprId)
        BoundReference(i, a.dataType, a.nullable)
    }
    val sums: () => DistinctSums = buffer.find(_.name == "sum").get.dataType match {
      case LongType => () => new DistinctSums.OfLongs
      case DoubleType => () => new DistinctSums.OfDoubles
      case t: DecimalType => () => new DistinctSums.OfDecimals(t.precision, t.scale)
    }
    DistinctValuesKernel.Fold(buffer.map(_.name), buffer.map(_.dataType),
      f.initialValues.map(_.eval()), result, sums)
  }

  /**
   * Whether this Spark's set compares `input`'s values as fastwindow does (their bytes, floating
   * values normalized): where its set normalizes them itself, or where they come normalized in a
   * struct, as the DISTINCT rewrite gives them (a set of structs compares them as bytes or
   * NaN-aware, the same once normalized).
   */
  private def floatsCompareAsBytes(input: Expression): Boolean =
    !FloatingValues.in(input.dataType) || setNormalizesFloats || normalizedStruct(input)

  private def normalized(e: Expression): Boolean = e match {
    case If(_, value, Literal(null, _)) => normalized(value)
    case _ => e.isInstanceOf[KnownFloatingPointNormalized]
  }

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

  override def supportEntries: Seq[SupportEntry] = Seq(
    SupportEntry(
      "size(collect_set(...)), count(DISTINCT ...)",
      kind,
      FramePlanning.supported,
      s"${TypeSet.anyBufferable.description}; strings of binary collations; FILTER (WHERE ...); " +
        "count(DISTINCT ...) of one or more columns (an extension: Spark rejects it, fastwindow " +
        "rewrites it); floating values of size(collect_set) from Spark 4.2 (earlier sets keep " +
        "NaNs apart)"
    ),
    SupportEntry(
      "sum(DISTINCT ...), avg(DISTINCT ...)",
      kind,
      FramePlanning.supported,
      "tinyint, smallint, int, bigint, float, double, decimal (up to 28 digits); FILTER (WHERE " +
        "...); an extension: Spark rejects them, fastwindow rewrites them into a fold of sum/avg " +
        "over the frame's set; bigint partitions that could overflow go to Spark"
    )
  )
}
