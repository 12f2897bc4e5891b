package fastwindow.ops

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.types.NullType

import fastwindow.columns.{Column, ColumnLayout, ColumnarRowView}

/**
 * The interpreted twin of the generated ops: every expression evaluated with `Expression.eval`
 * over a [[ColumnarRowView]] of the columns. Used when `spark.fastwindow.codegen.mode` is
 * NO_CODEGEN or compiling fails, and by the tests on every query.
 */
object InterpretedOps {

  def apply(plan: OpsPlan, columns: Array[Column]): OpsSet = new OpsSet(
    new Extractor(plan.layout, columns),
    new Peers(plan.layout, columns),
    plan.functions.map { f =>
      new FunctionOps(
        f.aggregates.map(a => new InterpretedAggregateOps(a, columns)).toIndexedSeq,
        f.values.map(v => new Value(v, columns)).toIndexedSeq,
        f.rangeEdges.map(e => new RangeEdge(e, columns)).toIndexedSeq
      )
    }.toIndexedSeq
  )

  private final class Extractor(layout: ColumnLayout, columns: Array[Column])
    extends ColumnExtractor {
    private val inputs = layout.columns.map(_.bound).toArray
    override def extract(row: InternalRow, r: Int): Unit = {
      var k = 0
      while (k < inputs.length) {
        columns(k).put(r, inputs(k).eval(row))
        k += 1
      }
    }
  }

  /** NULL-typed keys (ORDER BY NULL) hold only nulls, which are peers: they are skipped. */
  private final class Peers(layout: ColumnLayout, columns: Array[Column]) extends PeerKeys {
    private val keys: Array[(Column, Ordering[Any])] = layout.peerKeyColumns
      .filter(_.dataType != NullType)
      .map(c => (columns(c.index), PhysicalDataType.ordering(c.dataType))).toArray

    override def same(a: Int, b: Int): Boolean = keys.forall { case (column, ordering) =>
      val aNull = column.isNull(a)
      aNull == column.isNull(b) && (aNull || ordering.compare(column.get(a), column.get(b)) == 0)
    }
  }

  private final class Value(request: ValueRequest, columns: Array[Column]) extends ValueOps {
    private val view = new ColumnarRowView(columns)
    private val ordinal = request.ordinal

    private def writeValue(v: Any, out: InternalRow): Unit =
      if (v == null) out.setNullAt(ordinal) else out.update(ordinal, v)

    override def isNull(row: Int): Boolean = { view.row = row; request.input.eval(view) == null }
    override def write(row: Int, out: InternalRow): Unit = {
      view.row = row
      writeValue(request.input.eval(view), out)
    }
    override def writeDefault(row: Int, out: InternalRow): Unit = {
      view.row = row
      writeValue(request.default.map(_.eval(view)).orNull, out)
    }
  }

  private final class RangeEdge(request: RangeEdgeRequest, columns: Array[Column])
    extends RangeEdgeOps {
    private val view = new ColumnarRowView(columns)
    private val keyRow = new GenericInternalRow(1)
    private val ordering = PhysicalDataType.ordering(request.key.dataType)
    private var edge: Any = null

    private def key(row: Int): Any = { view.row = row; request.key.eval(view) }

    override def setEdge(i: Int): Unit = {
      keyRow.update(0, key(i))
      edge = request.bound.eval(keyRow)
    }

    override def compareToEdge(j: Int): Int =
      RangeEdgeOps.compare(key(j), edge, ordering, request.order)
  }
}
