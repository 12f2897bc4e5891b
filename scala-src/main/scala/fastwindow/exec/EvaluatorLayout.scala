package fastwindow.exec

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, BindReferences, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.catalyst.trees.CurrentOrigin
import org.apache.spark.sql.types.DataType

import fastwindow.buffer.ColumnType
import fastwindow.planning.{AggregateSpec, OffsetSpec, WindowPlan}

/**
 * One column of the partition buffer: an input expression evaluated once per row.
 *
 * @param bound     the expression bound to the child's output (what ingest evaluates)
 * @param attribute stands for the column in rewritten function expressions
 */
final case class ColumnSpec(index: Int, bound: Expression, attribute: AttributeReference) {
  def dataType: DataType = attribute.dataType
  def nullable: Boolean = attribute.nullable
}

/**
 * The columnar layout shared by the generated evaluator and its interpreted twin: which input
 * expressions are buffered (each distinct expression once, however many functions read it), which
 * columns are the ORDER BY keys used to find peers, and every function rewritten to read columns
 * instead of input rows.
 */
final case class EvaluatorLayout(plan: WindowPlan, childOutput: Seq[Attribute]) {

  /** Every distinct expression the functions read, then the peer keys, each once. */
  private val inputs: IndexedSeq[Expression] = {
    val peerKeys = if (plan.needsPeers) plan.orderSpec.map(_.child) else Nil
    (plan.functions.flatMap(_.inputs) ++ peerKeys)
      .foldLeft(Vector.empty[Expression]) { (acc, e) =>
        if (acc.exists(_.semanticEquals(e))) acc else acc :+ e
      }
  }

  val columns: IndexedSeq[ColumnSpec] = inputs.zipWithIndex.map { case (e, i) =>
    ColumnSpec(
      i,
      BindReferences.bindReference(e, childOutput),
      AttributeReference(s"col$i", e.dataType, e.nullable)())
  }

  /** The column holding the values of `e` (which must be one of the functions' inputs). */
  def columnOf(e: Expression): ColumnSpec = columns(inputs.indexWhere(_.semanticEquals(e)))

  /** Columns of the ORDER BY keys, compared to find peers (empty when no function needs them). */
  val peerKeyColumns: Seq[ColumnSpec] =
    if (plan.needsPeers) plan.orderSpec.map(o => columnOf(o.child)) else Nil

  val columnAttributes: Seq[AttributeReference] = columns.map(_.attribute)

  /**
   * The aggregate with its non-constant inputs replaced by column attributes. The copy keeps the
   * original's origin so ANSI errors carry the same query context as Spark's.
   */
  def columnarAggregate(spec: AggregateSpec): DeclarativeAggregate =
    CurrentOrigin.withOrigin(spec.function.origin) {
      spec.function.mapChildren { c =>
        if (c.foldable) c else columnOf(c).attribute
      }.asInstanceOf[DeclarativeAggregate]
    }

  /** The column of the ORDER BY key a RANGE frame with value offsets compares to its edges. */
  def rangeKeyColumn(spec: AggregateSpec): Option[ColumnSpec] = spec.rangeKey.map(k => columnOf(k.child))

  /** Index of the column holding a lead/lag input, and of its default when that is per row. */
  def offsetColumns(spec: OffsetSpec): (ColumnSpec, Option[ColumnSpec]) =
    (columnOf(spec.input), spec.default.filterNot(_.foldable).map(columnOf))

  /** Types of the function results the evaluator writes, by function ordinal. */
  val functionTypes: Seq[DataType] = plan.functions.map(_.resultType)

  /**
   * Estimated bytes per buffered row: each column's value (a reference plus the object's default
   * size when not primitive) and null flag, and the peer-group flag.
   */
  val bytesPerRow: Long = columns.map { c =>
    val value = if (ColumnType.isPrimitive(c.dataType)) c.dataType.defaultSize
      else 8 + c.dataType.defaultSize
    value + 1L
  }.sum + (if (plan.needsPeers) 1 else 0)

  /** Types of the operator's window outputs, in window expression order. */
  val outputTypes: Seq[DataType] = plan.outputs.map(_.dataType)
}
