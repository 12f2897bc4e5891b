package fastwindow.columns

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, BindReferences, Expression}

import fastwindow.model.WindowPlan

/**
 * Which input expressions of a [[WindowPlan]] are buffered as columns: each distinct expression
 * its functions read, once however many read it, then the ORDER BY keys when peers are needed.
 * Expressions that read columns are rewritten to read `attributes`, and bound to them, so that
 * ordinal k is column k for both evaluators.
 */
final case class ColumnLayout(plan: WindowPlan, childOutput: Seq[Attribute]) {

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

  val attributes: Seq[AttributeReference] = columns.map(_.attribute)

  /** The column holding the values of `e` (which must be one of the functions' inputs). */
  def columnOf(e: Expression): ColumnSpec = {
    val k = inputs.indexWhere(_.semanticEquals(e))
    require(k >= 0, s"${e.sql} is not a buffered input")
    columns(k)
  }

  /** `e` read from the columns: constants as they are, an input as its column's ordinal. */
  def bind(e: Expression): Expression =
    BindReferences.bindReference(if (e.foldable) e else columnOf(e).attribute, attributes)

  /** Columns of the ORDER BY keys, compared to find peers (empty when no function needs them). */
  val peerKeyColumns: Seq[ColumnSpec] =
    if (plan.needsPeers) plan.orderSpec.map(o => columnOf(o.child)) else Nil

  /**
   * Estimated bytes per buffered row: each column's value (a reference plus the object's default
   * size when not primitive) and null flag, and the peer-group flag.
   */
  val bytesPerRow: Long = columns.map { c =>
    val value = if (ColumnType.isPrimitive(c.dataType)) c.dataType.defaultSize
    else 8 + c.dataType.defaultSize
    value + 1L
  }.sum + (if (plan.needsPeers) 1 else 0)

  /** A fresh set of columns of this layout (one per task). */
  def newColumns(): Array[Column] = columns.map(c => Column(c.dataType)).toArray
}
