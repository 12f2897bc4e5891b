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
object ReplayedAggregateFamily
  extends BufferedFrameFamily[ReplayedAggregateSpec]("aggregate (Spark's own, per frame)") {

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

  private val signature = Signature(TypeSet.anyBufferable)

  override def plan(call: WindowCall): Planned = call.function match {
    case AggregateExpression(agg: TypedImperativeAggregate[_], Complete, false, filter, _)
        if replayable(agg) =>
      // What each non-constant child reads (a WITHIN GROUP child is a SortOrder: its key).
      val read = agg.children.filterNot(_.foldable).map {
        case o: SortOrder => o.child
        case other => other
      }
      Some(signature.of(agg.prettyName, read: _*).filtered(filter).framed(call) {
        val struct = CreateStruct(read)
        val inputs = filter.fold[Expression](struct)(
          If(_, struct, Literal.create(null, struct.dataType)))
        val bound = replayed(agg, read)
        ReplayedAggregateSpec(call.ordinal, inputs, bound, _)
      })
    case _ => None
  }

  /** `agg` with its non-constant inputs `read` from the struct of a row. */
  private def replayed(
      agg: TypedImperativeAggregate[_],
      read: Seq[Expression]): TypedImperativeAggregate[_] = {
    val fromStruct = BoundReference(0, CreateStruct(read).dataType, nullable = false)
    def fromRow(e: Expression): Expression = {
      val k = read.indexWhere(_ eq e)
      if (k < 0) e else GetStructField(fromStruct, k)
    }
    agg.withNewChildren(agg.children.map {
      case o: SortOrder => o.copy(child = fromRow(o.child))
      case c => fromRow(c)
    }).asInstanceOf[TypedImperativeAggregate[_]]
  }

  override def kernel(spec: ReplayedAggregateSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    new ReplayedAggregateKernel(
      FramePlanning.movingLocator(spec.frame, ops, peers),
      ops.values.head,
      spec.value.dataType.asInstanceOf[StructType],
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
