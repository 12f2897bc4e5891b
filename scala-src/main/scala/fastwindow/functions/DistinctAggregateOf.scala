package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Expression, Unevaluable}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.types.{DataType, IntegerType}

/**
 * `size(collect_set(input) [FILTER (WHERE filter)] OVER w)`, or a fold of an aggregate over that
 * set (the DISTINCT rewrite's `sum/avg(DISTINCT input)`, see [[DistinctFold]]), seen as one
 * window function of the frame's distinct values. Only planning sees it
 * ([[DistinctAggregateFamily.fuse]]); the operator's expressions keep Spark's form, which
 * Spark's window evaluation runs when a partition is handed over.
 *
 * @param ignoreNulls whether a null input is left out of the set (always, before Spark 4.3)
 * @param fold        None for the number of values, else the aggregate folded over them
 */
final case class DistinctAggregateOf(
    input: Expression,
    filter: Option[Expression],
    ignoreNulls: Boolean,
    fold: Option[DeclarativeAggregate])
  extends Expression with Unevaluable {
  override def children: Seq[Expression] = input +: filter.toSeq
  override def dataType: DataType = fold.fold[DataType](IntegerType)(_.dataType)
  override def nullable: Boolean = fold.isDefined
  override def prettyName: String =
    fold.fold("size(collect_set)")(f => s"${f.prettyName}(DISTINCT)")
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): Expression =
    copy(input = c.head, filter = filter.map(_ => c(1)))
}
