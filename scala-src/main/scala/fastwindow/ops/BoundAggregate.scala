package fastwindow.ops

import org.apache.spark.sql.catalyst
  .expressions.{AggregateWindowFunction, AttributeReference, BindReferences, Expression}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.types.DataType

/**
 * An aggregation as bound expressions: `update` reads the buffer then the partition's columns,
 * `merge` a left (earlier rows) then a right buffer, `evaluate` the buffer.
 */
final case class BoundAggregate(
    bufferAttributes: Seq[AttributeReference],
    initial: Seq[Expression],
    update: Seq[Expression],
    merge: Seq[Expression],
    evaluate: Expression) {
  def bufferTypes: Seq[DataType] = bufferAttributes.map(_.dataType)
}

object BoundAggregate {

  /**
   * `aggs` (reading `columns`) side by side in one buffer, evaluating the first; the others are
   * companions a guard reads (see [[AggregateRequest]]). Window-only aggregates (nth_value) have
   * no merge: they only run over frames that never merge.
   */
  def of(aggs: Seq[DeclarativeAggregate], columns: Seq[AttributeReference]): BoundAggregate = {
    val buffer = aggs.flatMap(_.aggBufferAttributes)
    BoundAggregate(
      buffer,
      aggs.flatMap(_.initialValues),
      BindReferences.bindReferences(aggs.flatMap(_.updateExpressions), buffer ++ columns),
      if (aggs.exists(_.isInstanceOf[AggregateWindowFunction])) Nil
      else BindReferences.bindReferences(
        aggs.flatMap(_.mergeExpressions), buffer ++ aggs.flatMap(_.inputAggBufferAttributes)),
      BindReferences.bindReference(aggs.head.evaluateExpression, buffer)
    )
  }
}
