package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.types._

import fastwindow.frames.PeerGroups
import fastwindow.kernels.{Kernel, ReplayedAggregateKernel}
import fastwindow.model.FallbackReason
import fastwindow.ops.FunctionOps

/**
 * Spark aggregates whose result depends on the order of their values and that no faster
 * algorithm reproduces exactly, run by Spark's own code over each frame in order
 * ([[ReplayedAggregateKernel]]), so their windows, and the other functions there, run on
 * fastwindow: `collect_set` read as an array (its element order is its hash set's),
 * `histogram_numeric` (its bins depend on the order values come in) and `listagg`/`string_agg`
 * (Spark 4.0+: the frame's strings in row order, or sorted WITHIN GROUP with Spark's ordering and
 * ties in row order, joined by the delimiter). Each such function costs what it costs in Spark;
 * the explain output says so.
 */
object ReplayedAggregateFamily extends BufferedFrameFamily[ReplayedAggregateSpec] {

  override def kind: String = "aggregate (Spark's own, per frame)"
  override def runsAggregates: Boolean = true
  override def sqlNames: Seq[String] =
    Seq("collect_set", "histogram_numeric", "listagg", "string_agg")

  /**
   * Aggregates whose `eval` reads their buffer without changing it (checked in each line's
   * bytecode for ListAgg, which sorts a copy). ListAgg is known by its name: Spark 3.5 has none.
   */
  private def replayable(agg: AggregateFunction): Boolean = agg match {
    case _: CollectSet | _: HistogramNumeric => true
    case other => other.getClass.getName == ListAgg
  }
  private val ListAgg = "org.apache.spark.sql.catalyst.expressions.aggregate.ListAgg"

  override def plan(
      function: Expression,
      frame: SpecifiedWindowFrame,
      orderSpec: Seq[SortOrder],
      ordinal: Int): Option[Either[FallbackReason, ReplayedAggregateSpec]] = function match {
    case AggregateExpression(agg: TypedImperativeAggregate[_], Complete, false, filter, _)
        if replayable(agg) =>
      val name = agg.prettyName
      // What each non-constant child reads (a WITHIN GROUP child is a SortOrder: its key).
      def input(c: Expression): Expression = c match {
        case o: SortOrder => o.child
        case other => other
      }
      val read = agg.children.filterNot(_.foldable).map(input)
      Some(
        read.find(c => !TypeSet.anyBufferable.contains(c.dataType)) match {
          case Some(c) =>
            Left(FallbackReason(FallbackReason.UnsupportedType,
                s"$name of type ${c.dataType.sql} is not supported yet (supported: " +
                  s"${TypeSet.anyBufferable.description})"))
          case None if filter.exists(f => !f.deterministic) =>
            Left(FallbackReason(FallbackReason.UnsupportedFunction,
                s"$name FILTER (WHERE ${filter.get.sql}) is not supported"))
          case None =>
            val struct = CreateStruct(read)
            val inputs = filter.fold[Expression](struct)(If(_, struct,
                Literal.create(null,
                  struct.dataType)))
            val fromStruct = BoundReference(0, struct.dataType, nullable = false)
            def fromRow(e: Expression): Expression = {
              val k = read.indexWhere(_ eq e)
              if (k < 0) e else GetStructField(fromStruct, k)
            }
            val bound = agg.withNewChildren(agg.children.map {
              case o: SortOrder => o.copy(child = fromRow(o.child))
              case c => fromRow(c)
            }).asInstanceOf[TypedImperativeAggregate[_]]
            AggregateFamily.framed(name, frame, orderSpec) { shape =>
              ReplayedAggregateSpec(ordinal, inputs, bound, shape)
            }
        })
    case _ => None
  }

  override def kernel(spec: ReplayedAggregateSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    new ReplayedAggregateKernel(
      FramePlanning.movingLocator(spec.frame, ops, peers),
      ops.values.head,
      spec.row.dataType.asInstanceOf[StructType],
      spec.aggregate.asInstanceOf[TypedImperativeAggregate[Any]],
      spec.resultType,
      spec.ordinal
    )

  override def supportEntries: Seq[SupportEntry] = Seq(SupportEntry(
      "collect_set (its array), histogram_numeric, listagg, string_agg (Spark 4.0+)",
      kind,
      FramePlanning.supported,
      s"${TypeSet.anyBufferable.description}; FILTER (WHERE ...); Spark's own aggregate over " +
        "each frame's rows in order, at Spark's cost (O(w) per row for moving frames): results " +
        "exactly Spark's, and the window's other functions run on fastwindow"
    ))
}
