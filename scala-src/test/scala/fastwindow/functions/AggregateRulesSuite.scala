package fastwindow.functions

import scala.util.Try

import org.apache.spark.sql.catalyst.analysis.FunctionRegistry
import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.WindowTestKit._

/**
 * The aggregate registry ([[AggregateFamily.rules]]) against Spark's own function registry: each
 * rule states every fact about its aggregate for every input type it accepts, and the names a
 * fallback lists as supported are exactly the aggregates fastwindow plans.
 */
class AggregateRulesSuite extends AnyFunSuite {

  private val columns: Seq[AttributeReference] = Seq(
    ByteType,
    ShortType,
    IntegerType,
    LongType,
    FloatType,
    DoubleType,
    DecimalType(10, 2),
    DecimalType(38, 6),
    StringType,
    BinaryType,
    BooleanType,
    DateType,
    TimestampType,
    YearMonthIntervalType(),
    DayTimeIntervalType(),
    ArrayType(IntegerType)
  ).zipWithIndex.map { case (t, k) => attr(s"c$k", t) }
  private val key = attr("k", IntegerType)
  private val byKey = Seq(asc(key))

  /** `name` built by Spark's registry over `inputs`, its runtime replacements applied as the
   * optimizer applies them (bool_and is min): the aggregate it plans, if it resolves. */
  private def built(name: String, inputs: Seq[Expression]): Option[AggregateFunction] =
    FunctionRegistry.expressions.get(name).flatMap { case (_, builder) =>
      Try(builder(inputs)).toOption.map(replaced).collect {
        case f: AggregateFunction if f.resolved && f.checkInputDataTypes().isSuccess => f
      }
    }

  /**
   * `name(constant) WITHIN GROUP (ORDER BY c)` (percentile_cont, percentile_disc, Spark 4.0+),
   * as the parser builds it: the function over its constant, then given its ordering (a method of
   * Spark 4.0+, hence called by name).
   */
  private def withinGroup(name: String, c: AttributeReference): Option[AggregateFunction] =
    FunctionRegistry.expressions.get(name).flatMap { case (_, builder) =>
      Try {
        val f = builder(Seq(Literal(0.5)))
        f.getClass.getMethod("withOrderingWithinGroup", classOf[Seq[_]])
          .invoke(f, Seq(asc(c))).asInstanceOf[Expression]
      }.toOption.map(replaced).collect {
        case f: AggregateFunction if f.resolved && f.checkInputDataTypes().isSuccess => f
      }
    }

  private def replaced(e: Expression): Expression = {
    val next = e.transformUp { case r: RuntimeReplaceable => r.replacement }
    if (next fastEquals e) e else replaced(next)
  }

  /** Argument lists to try a function with: one or two columns, or a column and constants
   * (percentages, bin counts, delimiters, accuracies). */
  private def argumentLists(c: AttributeReference): Seq[Seq[Expression]] = Seq(
    Seq(c), Seq(c, c), Seq(c, Literal(0.5)), Seq(c, Literal(3)), Seq(c, Literal(",")),
    Seq(c, Literal(0.5), Literal(100)), Seq(c, Literal(0.05)))

  /** Every way `name` builds over the test columns, each as an aggregate that resolves. */
  private def instances(name: String): Seq[AggregateFunction] =
    columns.flatMap(c => argumentLists(c).flatMap(built(name, _)) ++ withinGroup(name, c))

  private def plans(f: AggregateFunction): Boolean =
    check(Seq(win(agg(f), byKey, wholeRows)), byKey).isRight

  test("every rule states its facts for each input it accepts, and is the rule found for it") {
    for (rule <- AggregateFamily.rules if rule.name != "product"; name <- rule.names) {
      val declaratives = instances(name).collect { case d: DeclarativeAggregate => d }
        .filter(d =>
          rule.typedInputs(d).forall { case (c, types) =>
            c.foldable ||
            types.contains(c.dataType)
          })
      assert(declaratives.nonEmpty, s"$name builds no aggregate of the types ${rule.inputs}")
      for (d <- declaratives) {
        assert(AggregateFamily.ruleOf(d).contains(rule), s"$name: $d is not found as ${rule.name}")
        val order = rule.order(d)
        val guard = rule.guard(d)
        val what = s"$name(${d.children.map(_.dataType.simpleString).mkString(", ")}) is $order"
        // Where the order decides overflow, the sliding frames must watch the magnitudes.
        if (order.merge == OrderDependence.ExactBelowOverflow) assert(guard.isDefined, what)
        // Rounding is a floating-point result's.
        if (order.roundsByOrder) assert(d.dataType == DoubleType, what)
        // A result computed per key in any order must not depend on which of two equal values
        // came first: counts and bit operations keep none, min and max one of byte-stable types.
        if (order.perKey && (d.isInstanceOf[Min] || d.isInstanceOf[Max])) {
          assert(TypeSet.byteStable.contains(d.children.head.dataType), what)
        }
      }
    }
  }

  test("sums and averages depend on the order as their arithmetic does") {
    val long = attr("l", LongType)
    def orderOf(agg: DeclarativeAggregate) = AggregateFamily.orderDependence(agg).get
    assert(orderOf(sumOf(long, EvalMode.LEGACY)) == OrderDependence.Free) // wraps
    assert(orderOf(sumOf(long, EvalMode.ANSI)) == OrderDependence.FreeWithinLong)
    assert(orderOf(sumOf(attr("d", DoubleType))) == OrderDependence.Rounding)
    assert(orderOf(sumOf(attr("dec", DecimalType(28, 2)))) == OrderDependence.Free)
    assert(orderOf(sumOf(attr("dec", DecimalType(38, 2)))) == OrderDependence.FreeUntilOverflow)
    assert(orderOf(Average(long)) == OrderDependence.Rounding) // summed as double
    assert(orderOf(Min(attr("d", DoubleType))) == OrderDependence.Positional) // 0.0 vs -0.0
    assert(orderOf(Max(long)) == OrderDependence.Free)
  }

  test("a fallback of an aggregate lists exactly the aggregates fastwindow plans") {
    val sketch = new CountMinSketchAgg(key, Literal(0.1), Literal(0.9), Literal(1))
    val reason = check(Seq(win(agg(sketch), byKey, wholeRows)), byKey).left.toOption
      .flatMap(_.headOption).map(_.message).getOrElse(fail("count_min_sketch planned"))
    val marker = "(supported: "
    assert(reason.contains(marker) && reason.endsWith(")"), reason)
    val listed = reason.substring(reason.indexOf(marker) + marker.length, reason.length - 1)
      .split(", ").toSet
    // Listed by what they compute, not a function name: DISTINCT aggregates, size(collect_set).
    val plainNames = listed.filterNot(_.contains("("))
    val aggregates = FunctionRegistry.expressions.collect {
      case (name, (info, _)) if info.getGroup == "agg_funcs" => name
    }.toSet
    val planned = aggregates.filter(name => instances(name).exists(plans))
    // product has no SQL name (DataFrame API only); listagg and string_agg came with Spark 4.0.
    val notOnThisLine = plainNames -- aggregates
    assert(notOnThisLine.subsetOf(Set("product", "listagg", "string_agg")), notOnThisLine)
    assert((planned -- plainNames).isEmpty,
      s"planned but not listed as supported: ${(planned -- plainNames).toSeq.sorted}")
    assert((plainNames -- planned -- notOnThisLine).isEmpty,
      s"listed as supported but not planned: ${(plainNames -- planned).toSeq.sorted}")
  }
}
