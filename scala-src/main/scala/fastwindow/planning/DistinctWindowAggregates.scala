package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.fastwindow.FloatingValues
import org.apache.spark.sql.types.LongType

import fastwindow.model.DistinctFold

/**
 * Lets window aggregates take DISTINCT, which Spark's analyzer rejects
 * (`DISTINCT_WINDOW_FUNCTION_UNSUPPORTED`): an extension of Spark's SQL, not a Spark feature.
 * Run after resolution and before Spark's checks, it rewrites them into window functions Spark
 * runs itself, so a query answers the same with fastwindow switched off in the session (Spark's
 * window then runs the rewrite, building each frame's set):
 *
 *  - `count(DISTINCT a, b, ...) [FILTER (WHERE f)] OVER w` becomes
 *    `CAST(size(collect_set(CASE WHEN [f AND] a, b, ... IS NOT NULL THEN named_struct(a, b, ...)
 *    END) OVER w) AS BIGINT)`: distinct combinations of non-null values, as a grouped
 *    `count(DISTINCT ...)` counts them (a set skips the nulls; Spark before 4.2 takes no FILTER
 *    over a window); floating values are normalized (one NaN, -0.0 = 0.0), as Spark's grouping
 *    normalizes them. fastwindow runs it in O(n) per partition (`DistinctAggregateFamily`).
 *  - `sum(DISTINCT x) [FILTER (WHERE f)] OVER w` and `avg(DISTINCT x) ...` become a fold of the
 *    same aggregate over the frame's set: `aggregate(collect_set(CASE WHEN f THEN x END) OVER w,
 *    <its initial buffer>, <its update>, <its result>)`, built from the aggregate's own
 *    expressions, so types, overflow and ANSI behave as in a grouped `sum(DISTINCT x)`
 *    (floating values normalized first, as Spark's grouping normalizes them). The fold is
 *    tagged ([[DistinctFold]]) for fastwindow, which keeps each frame's distinct sum
 *    incrementally (`DistinctAggregateFamily`).
 *  - DISTINCT of aggregates that duplicates do not change (min, max, bit_and, bit_or, bool_and,
 *    bool_or, collect_set) is dropped.
 *
 * It walks the plan with `resolveExpressions`, as analyzer rules must (Spark's test mode fails
 * rules that use the optimizer's `transform*`; its own window suites run with fastwindow in CI).
 *
 * Other DISTINCT window aggregates (stddev, ...) and inputs a set cannot hold (maps) are left
 * as they are, for Spark's analyzer to reject.
 */
object DistinctWindowAggregates extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveExpressions {
    case w @ WindowExpression(a @ AggregateExpression(f, _, true, filter, _), _) if w.resolved =>
      f match {
        case _: Min | _: Max | _: BitAndAgg | _: BitOrAgg | _: BoolAnd | _: BoolOr | _: CollectSet =>
          w.copy(windowFunction = a.copy(isDistinct = false))
        case Count(inputs) =>
          distinctCount(w, inputs, filter).getOrElse(w)
        case _: Sum | _: Average =>
          distinctFold(w, f.asInstanceOf[DeclarativeAggregate], filter).getOrElse(w)
        case _ => w
      }
  }

  private def distinctCount(
      w: WindowExpression,
      inputs: Seq[Expression],
      filter: Option[Expression]): Option[Expression] = {
    def struct(values: Seq[Expression]) = CreateNamedStruct(values.zipWithIndex.flatMap {
      case (value, i) => Seq(Literal(s"c$i"), value)
    })
    // Types a set cannot hold (maps) stay DISTINCT for Spark to reject; they cannot be normalized.
    if (new CollectSet(struct(inputs)).checkInputDataTypes().isFailure) None
    else {
      val values = struct(inputs.map(FloatingValues.normalized))
      val counted = (filter.toSeq ++ inputs.map(IsNotNull)).reduce(And)
      val set = new CollectSet(If(counted, values, Literal.create(null, values.dataType)))
      val sets = w.copy(windowFunction = AggregateExpression(set, Complete, isDistinct = false))
      Some(Cast(Size(sets, legacySizeOfNull = false), LongType))
    }
  }

  private def distinctFold(
      w: WindowExpression,
      aggregate: DeclarativeAggregate,
      filter: Option[Expression]): Option[Expression] = {
    val input = aggregate.children.head
    if (aggregate.children.size != 1 || new CollectSet(input).checkInputDataTypes().isFailure) None
    else {
      val value = FloatingValues.normalized(input)
      val taken = filter.fold(value)(f => If(f, value, Literal.create(null, value.dataType)))
      val sets = w.copy(windowFunction =
        AggregateExpression(new CollectSet(taken), Complete, isDistinct = false))
      val element = NamedLambdaVariable("element", value.dataType, nullable = false)
      val function = aggregate.withNewChildren(Seq(element)).asInstanceOf[DeclarativeAggregate]
      val buffer = function.aggBufferAttributes
      def struct(values: Seq[Expression]) = CreateNamedStruct(buffer.zip(values).flatMap {
        case (field, v) => Seq(Literal(field.name), v)
      })
      val zero = struct(function.initialValues)
      // The aggregate's expressions read its buffer as attributes; the fold keeps it in a struct.
      def onStruct(buffered: NamedLambdaVariable)(e: Expression) = e.transform {
        case a: AttributeReference if buffer.exists(_.exprId == a.exprId) =>
          val i = buffer.indexWhere(_.exprId == a.exprId)
          GetStructField(buffered, i, Some(buffer(i).name))
      }
      val merged = NamedLambdaVariable("buffer", zero.dataType, nullable = true)
      val last = NamedLambdaVariable("buffer", zero.dataType, nullable = true)
      val fold = ArrayAggregate(
        sets,
        zero,
        LambdaFunction(struct(function.updateExpressions.map(onStruct(merged))),
          Seq(merged, element)),
        LambdaFunction(onStruct(last)(function.evaluateExpression), Seq(last))
      )
      fold.setTagValue(DistinctFold.Aggregate, function)
      Some(fold)
    }
  }
}
