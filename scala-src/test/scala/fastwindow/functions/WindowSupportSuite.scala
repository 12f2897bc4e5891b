package fastwindow.functions

import org.apache.spark.sql.catalyst.expressions.{Left => _, Right => _, _}
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.encoders.ExpressionEncoder
import org.apache.spark.sql.execution.aggregate.{ScalaAggregator, ScalaUDAF}
import org.apache.spark.sql.expressions.{Aggregator, MutableAggregationBuffer, UserDefinedAggregateFunction}
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.WindowTestKit._
import fastwindow.explain.WindowReport
import fastwindow.model.{FallbackReason, FilteredAggregate, FrameShape, RankingKind, WindowPlan}

/**
 * [[WindowSupport.check]], the planner's decision: supported mixes of functions and frames give a
 * [[WindowPlan]] with the right function specs, frame shapes and outputs; anything unsupported
 * makes the whole node fall back (never a partial plan) with a reason that names what is not
 * supported: the function, the frame as users write it, and/or the type. Assertions are on the
 * stable parts of each reason (names, frames, types), not on its whole wording.
 */
class WindowSupportSuite extends AnyFunSuite {

  private val k = attr("k", IntegerType)
  private val i = attr("i", IntegerType)
  private val l = attr("l", LongType)
  private val d = attr("d", DoubleType)
  private val dec = attr("dec", DecimalType(10, 2))
  private val s = attr("s", StringType)
  private val arr = attr("arr", ArrayType(IntegerType))
  private val map = attr("m", MapType(IntegerType, StringType))
  private val byK = Seq(asc(k))

  private def plan(exprs: Seq[Expression], order: Seq[SortOrder] = byK): WindowPlan =
    check(exprs, order) match {
      case Right(p) => p
      case Left(reason) => fail(s"expected a plan, got the fallback reason: $reason")
    }

  private def reasons(exprs: Seq[Expression], order: Seq[SortOrder] = byK): Seq[FallbackReason] =
    check(exprs, order) match {
      case Left(r) => r
      case Right(p) => fail(s"expected a fallback reason, got a plan: $p")
    }

  /** Every reason, as one string. */
  private def reason(exprs: Seq[Expression], order: Seq[SortOrder] = byK): String =
    reasons(exprs, order).map(_.message).mkString("; ")

  /** The reason mentions every one of `parts` (case-insensitively). */
  private def assertMentions(reason: String, parts: String*): Unit =
    parts.foreach { part =>
      assert(reason.toLowerCase.contains(part.toLowerCase),
        s"reason does not mention '$part': $reason")
    }

  private def rows(lower: Expression, upper: Expression) =
    SpecifiedWindowFrame(RowFrame, lower, upper)
  private def range(lower: Expression, upper: Expression) =
    SpecifiedWindowFrame(RangeFrame, lower, upper)

  /** A bound as the parser writes `n PRECEDING`. */
  private def preceding(n: Int): Expression = UnaryMinus(Literal(n))

  // ---------------------------------------------------------------------------------------------
  // Supported

  test("supported: every ranking function, lead/lag and aggregate over whole and running frames") {
    val keys = byK.map(_.child)
    val exprs = Seq(
      win(RowNumber(), byK),
      win(Rank(keys), byK),
      win(DenseRank(keys), byK),
      win(PercentRank(keys), byK),
      win(CumeDist(), byK),
      win(NTile(Literal(4)), byK),
      win(Lead(s, Literal(2), Literal.create(null, StringType), false), byK),
      win(Lag(i, Literal(1), Literal(0), true), byK),
      win(agg(Count(Literal(1))), byK, wholeRows),
      win(agg(Count(s)), byK, wholeRange),
      win(agg(sumOf(i)), byK, runningRows),
      win(agg(sumOf(dec, EvalMode.ANSI)), byK, runningRange),
      win(agg(Average(d, EvalMode.ANSI)), byK, runningRange),
      win(agg(Min(s)), byK, runningRows),
      win(agg(Max(attr("ts", TimestampType))), byK, wholeRows)
    )
    val p = plan(exprs)
    assert(p.functions.map(_.ordinal) == exprs.indices)
    assert(p.functions.take(6).map { case r: RankingSpec => r.kind; case o => fail(s"$o") } == Seq(
      RankingKind.RowNumber, RankingKind.Rank, RankingKind.DenseRank, RankingKind.PercentRank,
      RankingKind.CumeDist, RankingKind.NTile(4)))
    p.functions(6) match {
      case o: OffsetSpec =>
        assert(o.offset == 2 && o.default.isEmpty && !o.ignoreNulls && o.input.semanticEquals(s))
      case other => fail(s"lead: $other")
    }
    p.functions(7) match {
      case o: OffsetSpec =>
        assert(o.offset == -1 && o.ignoreNulls && o.default.exists(_.semanticEquals(Literal(0))))
      case other => fail(s"lag: $other")
    }
    assert(p.functions.drop(8).map {
      case a: AggregateSpec => a.frame; case o => fail(s"$o")
    } == Seq(
      FrameShape.WholePartition,
      FrameShape.WholePartition,
      FrameShape.RunningRows,
      FrameShape.RunningRange,
      FrameShape.RunningRange,
      FrameShape.RunningRows,
      FrameShape.WholePartition
    ))
    assert(p.needsPeers)
    assert(p.outputs.zipWithIndex.forall {
      case (BoundReference(ordinal, _, _), index) => ordinal == index
      case _ => false
    })
    // count(*) reads no column: its constant input is not buffered
    assert(p.functions(8).inputs.isEmpty)
  }

  test("supported: row_number, lead and whole-partition aggregates need no peers") {
    val p = plan(Seq(
        win(RowNumber(), byK),
        win(Lead(i, Literal(1), Literal.create(null, IntegerType), false), byK),
        win(agg(sumOf(i)), byK, wholeRange),
        win(agg(Min(i)), byK, runningRows)
      ))
    assert(!p.needsPeers)
    // so any order key type is fine, even one fastwindow cannot compare
    assert(check(Seq(win(RowNumber(), Seq(asc(arr)))), Seq(asc(arr))).isRight)
  }

  test("supported: a repeated window function is computed once and feeds every output using it") {
    val sumI = win(agg(sumOf(i)), byK, runningRows)
    val p = plan(Seq(sumI, win(RowNumber(), byK), sumI.copy()))
    assert(p.functions.size == 2)
    assert(p.outputs.map { case b: BoundReference => b.ordinal; case o => fail(s"$o") } == Seq(0, 1,
      0))
  }

  test("supported: outputs computed from window functions (as DecimalAggregates writes them)") {
    val avgDec = win(agg(Average(dec, EvalMode.LEGACY)), byK, runningRows)
    val exprs = Seq(Cast(avgDec, DecimalType(14, 6)),
      Divide(Cast(win(agg(sumOf(i)), byK, wholeRows), DoubleType), Literal(10.0)))
    val p = plan(exprs)
    assert(p.functions.size == 2)
    assert(p.outputs(0).isInstanceOf[Cast] && p.outputs(0).references.isEmpty)
    assert(p.outputs(0).collect { case b: BoundReference => b.ordinal } == Seq(0))
    assert(p.outputs(1).collect { case b: BoundReference => b.ordinal } == Seq(1))
  }

  test("supported: min/max/count over every orderable type; sum/avg over every numeric type") {
    val orderable = Seq(
      ByteType,
      ShortType,
      IntegerType,
      LongType,
      FloatType,
      DoubleType,
      DecimalType(38, 18),
      BooleanType,
      StringType,
      BinaryType,
      DateType,
      TimestampType,
      TimestampNTZType
    )
    for (dt <- orderable) {
      val x = attr("x", dt)
      assert(check(Seq(win(agg(Min(x)), byK, runningRange), win(agg(Max(x)), byK, wholeRows),
            win(agg(Count(x)), byK, runningRows)), byK).isRight, s"min/max/count of $dt")
    }
    for (dt <-
        Seq(ByteType, ShortType, IntegerType, LongType, FloatType, DoubleType, DecimalType(5, 2))) {
      val x = attr("x", dt)
      assert(check(Seq(win(agg(sumOf(x)), byK, runningRange),
            win(agg(Average(x, EvalMode.LEGACY)), byK, wholeRows)), byK).isRight, s"sum/avg of $dt")
    }
    // count counts values of any bufferable type, not only orderable ones
    assert(check(Seq(win(agg(Count(map)), byK, wholeRows)), byK).isRight)
  }

  test(
    "supported: sliding ROWS frames (moving, shrinking, offset) for count, min, max and non-decimal sum/avg") {
    val frames = Seq(
      rows(preceding(1), CurrentRow) -> FrameShape.SlidingRows(Some(-1), Some(0)),
      rows(Literal(-2), Literal(3)) -> FrameShape.SlidingRows(Some(-2), Some(3)),
      rows(CurrentRow, UnboundedFollowing) -> FrameShape.SlidingRows(Some(0), None),
      rows(UnboundedPreceding, preceding(1)) -> FrameShape.SlidingRows(None, Some(-1)),
      rows(Literal(1), Literal(5)) -> FrameShape.SlidingRows(Some(1), Some(5))
    )
    for ((frame, shape) <- frames) {
      val p = plan(Seq(win(agg(Min(s)), byK, frame), win(agg(Count(Literal(1))), byK, frame),
          win(agg(sumOf(l)), byK, frame), win(agg(Average(d, EvalMode.ANSI)), byK, frame)))
      assert(p.functions.forall { case a: AggregateSpec => a.frame == shape; case _ => false },
        s"${frame.sql}: ${p.functions}")
      assert(!p.needsPeers)
    }
  }

  test("supported: stddev/variance, first/last, min_by/max_by over every frame shape") {
    val allFrames = Seq(wholeRows, wholeRange, runningRows, runningRange,
      rows(preceding(2), CurrentRow), rows(Literal(1), Literal(3)),
      rows(CurrentRow, UnboundedFollowing))
    val ts = attr("ts", TimestampType)
    for (frame <- allFrames) {
      val fns = Seq(
        StddevSamp(d),
        StddevPop(Cast(dec, DoubleType)),
        VarianceSamp(d),
        VariancePop(Cast(l, DoubleType)),
        First(s, false),
        First(arr, true),
        Last(map, false),
        Last(i, true),
        MinBy(s, d),
        MaxBy(arr, ts),
        MinBy(i, attr("bo", BooleanType)),
        Min(attr("bin", BinaryType)),
        Max(attr("bo", BooleanType))
      )
      val p = plan(fns.map(f => win(agg(f), byK, frame)))
      assert(p.functions.size == fns.size)
      assert(p.functions.zip(fns).forall {
          case (a: AggregateSpec, f) => a.function == f
          case _ => false
        }, frame.sql)
    }
  }

  test("supported: nth_value (with IGNORE NULLS) over whole and running frames") {
    for ((frame, shape) <- Seq(wholeRows -> FrameShape.WholePartition,
        runningRows -> FrameShape.RunningRows, runningRange -> FrameShape.RunningRange)) {
      val p = plan(Seq(win(NthValue(i, Literal(2), false), byK, frame),
          win(NthValue(arr, Literal(1), true), byK, frame)))
      assert(p.functions.forall { case a: NthValueSpec => a.frame == shape; case _ => false })
      // the constant offset is not an input column
      assert(p.functions.head.inputs.map(_.semanticEquals(i)) == Seq(true))
    }
  }

  test(
    "supported: FILTER (WHERE ...) updates only where the filter is true, as Spark's window does") {
    val filter = GreaterThan(k, Literal(0))
    for (frame <- Seq(wholeRows, runningRange, rows(preceding(1), Literal(1)))) {
      val p = plan(Seq(
          win(agg(Max(i), filter = Some(filter)), byK, frame),
          win(agg(sumOf(dec, EvalMode.ANSI), filter = Some(filter)), byK, frame),
          win(agg(Count(Literal(1)), filter = Some(IsNotNull(s))), byK, frame)
        ))
      val specs = p.functions.map { case a: AggregateSpec => a; case o => fail(s"$o") }
      specs.head.function match {
        case FilteredAggregate(Max(child), f) =>
          assert(child.semanticEquals(i) && f.semanticEquals(filter))
        case other => fail(s"$other")
      }
      // the filter is an input (a buffered column), next to the aggregate's own inputs
      assert(specs.head.inputs.exists(_.semanticEquals(filter)))
      assert(specs(2).inputs.map(_.sql) == Seq(IsNotNull(s).sql))
      val max = specs.head.function
      assert(max.updateExpressions.zip(max.aggBufferAttributes).forall {
        case (If(f, _, b), a) => f.semanticEquals(filter) && b.semanticEquals(a)
        case _ => false
      })
      assert(
        max.mergeExpressions == specs.head.function.asInstanceOf[FilteredAggregate].agg.mergeExpressions)
      assert(specs.head.function.prettyName == "max")
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Unsupported: precise reasons

  test("supported: RANGE frames with value offsets read the key; CURRENT ROW edges need peers") {
    val moving = plan(Seq(win(agg(sumOf(i)), byK, range(preceding(1), CurrentRow))))
    moving.functions.head match {
      case a: AggregateSpec =>
        assert(a.frame.sql == "RANGE BETWEEN 1 PRECEDING AND CURRENT ROW")
        assert(a.frame.rangeKey.contains(byK.head) && a.needsPeers && a.streamBounds.isEmpty)
        assert(a.inputs.exists(_.semanticEquals(k)))
      case other => fail(s"not an aggregate: $other")
    }
    val shrinking =
      plan(Seq(win(agg(Max(d)), Seq(asc(k), desc(s)), range(CurrentRow, UnboundedFollowing))))
    shrinking.functions.head match {
      case a: AggregateSpec => assert(a.frame.rangeKey.isEmpty && a.needsPeers)
      case other => fail(s"not an aggregate: $other")
    }
    val ahead = plan(Seq(win(agg(Count(i)), byK, range(Literal(2), Literal(5)))))
    assert(ahead.functions.head.asInstanceOf[AggregateSpec].frame.sql ==
      "RANGE BETWEEN 2 FOLLOWING AND 5 FOLLOWING")
    assert(!ahead.needsPeers)
  }

  test("supported: RANGE offsets on an interval key (the key type's own addition)") {
    val interval = attr("iv", DayTimeIntervalType())
    val frame = range(UnaryMinus(Literal.create(86400000000L, DayTimeIntervalType())), CurrentRow)
    assert(check(Seq(win(agg(Count(i)), Seq(asc(interval)), frame)), Seq(asc(interval))).isRight)
  }

  private val countMinSketch = new CountMinSketchAgg(i, Literal(0.1), Literal(0.9), Literal(1))

  test("an unsupported aggregate (count_min_sketch) names itself and lists what is supported") {
    assertMentions(reason(Seq(win(agg(countMinSketch), byK, wholeRows))), "count_min_sketch",
      "not supported", "count, ", "sum, ", "stddev_samp", "corr", "percentile, median")
  }

  test("supported: percentiles, co-moments, collections and sketches over the whole partition") {
    val functions = Seq(new Percentile(d, Literal(0.5)), Corr(d, d), CovPopulation(d, d),
      new CollectList(i), HyperLogLogPlusPlus(i), CollectSet(i),
      new HistogramNumeric(d, Literal(3)))
    assert(planOf(functions.map(f => win(agg(f), byK, wholeRows)), byK).functions.size == 7)
  }

  test("user-defined aggregates name their registered name or class") {
    val udaf = new SumOfLongs
    val aggregator = new CountLongs
    val encoder = ExpressionEncoder[Long]()
    for ((fn, name) <- Seq(
        ScalaUDAF(Seq(l), udaf) -> classOf[SumOfLongs].getName,
        ScalaUDAF(Seq(l), udaf, udafName = Some("my_sum")) -> "my_sum",
        ScalaAggregator(Seq(l), aggregator, encoder, encoder) -> classOf[CountLongs].getName,
        ScalaAggregator(Seq(l), aggregator, encoder, encoder, aggregatorName = Some("my_count")) ->
          "my_count"
      )) {
      val r = reason(Seq(win(agg(fn), byK, wholeRows)))
      assertMentions(r, name, "not supported")
      assert(!r.contains("aggregate function  is"), r)
    }
  }

  test("supported: nth_value over sliding frames, buffered (it is found by position, not merged)") {
    for (frame <- Seq(rows(preceding(1), CurrentRow), rows(CurrentRow, UnboundedFollowing),
        rows(UnboundedPreceding, preceding(2)))) {
      val p = plan(Seq(win(NthValue(i, Literal(2), false), byK, frame)))
      assert(p.functions.head.streamBounds.isEmpty, frame.sql)
    }
  }

  test("unsupported: DISTINCT aggregates and aggregates in another mode") {
    assertMentions(reason(Seq(win(agg(sumOf(i), distinct = true), byK, wholeRows))), "sum",
      "DISTINCT")
    assertMentions(reason(Seq(win(agg(Count(s), distinct = true), byK, runningRows))), "count",
      "DISTINCT")
    val partial = win(AggregateExpression(sumOf(i), Partial, isDistinct = false), byK, wholeRows)
    assertMentions(reason(Seq(partial)), "sum", "Partial")
  }

  test(
    "unsupported: min_by/max_by with an ordering fastwindow cannot compare; the value may be anything") {
    assertMentions(reason(Seq(win(agg(MaxBy(i, arr)), byK, wholeRows))), "max_by", "ARRAY<INT>",
      "ordering")
    assert(check(Seq(win(agg(MinBy(map, i)), byK, wholeRows),
          win(agg(MaxBy(arr, s)), byK,
            rows(preceding(3), CurrentRow))), byK).isRight)
  }

  test("unsupported input types name the function and the type") {
    assertMentions(reason(Seq(win(agg(Min(arr)), byK, runningRows))), "min", "ARRAY<INT>",
      "not supported")
    assertMentions(reason(Seq(win(agg(Max(map)), byK, wholeRows))), "max", "MAP<INT, STRING>")
    assertMentions(reason(Seq(win(agg(sumOf(s)), byK, wholeRows))), "sum", "STRING")
    assertMentions(reason(Seq(win(agg(Average(attr("b", BooleanType), EvalMode.LEGACY)), byK,
            wholeRows))),
      "avg", "BOOLEAN")
    // the reason lists the supported input types
    assertMentions(reason(Seq(win(agg(Min(arr)), byK, runningRows))), "supported input types",
      "string")
  }

  test("unsupported lead/lag: non-constant offset, mismatched default type, unbufferable input") {
    val nonConstant = reason(Seq(win(Lead(i, k, Literal.create(null, IntegerType), false), byK)))
    assertMentions(nonConstant, "lead", "non-constant offset", "k")
    val lagNonConstant =
      reason(Seq(win(Lag(i, Add(k, Literal(1)), Literal.create(null, IntegerType), false), byK)))
    assertMentions(lagNonConstant, "lag", "non-constant offset")
    assertMentions(reason(Seq(win(Lead(i, Literal(1), Literal("x"), false), byK))),
      "lead", "default", "STRING", "INT")
  }

  test("unsupported percentiles: a percentage, accuracy or frequency that is not a constant") {
    val column = new ApproximatePercentile(d, d, Literal(10000))
    assertMentions(reason(Seq(win(agg(column), byK, wholeRows))), "percentile_approx",
      "not a constant")
    val accuracy = new ApproximatePercentile(d, Literal(0.5), Cast(k, IntegerType))
    assertMentions(reason(Seq(win(agg(accuracy), byK, wholeRows))), "percentile_approx",
      "not a constant")
    val exact = new Percentile(d, d)
    assertMentions(reason(Seq(win(agg(exact), byK, wholeRows))), "percentile", "not a constant")
    val frequency = new Percentile(d, Literal(0.5), k)
    assertMentions(reason(Seq(win(agg(frequency), byK, wholeRows))), "percentile", "frequency")
  }

  test("collated strings (Spark 4.0+): compared by their collation as ORDER BY keys, min/max " +
    "inputs and min_by/max_by orderings; counted as distinct values they fall back") {
    val lcaseType = typeOnThisLine("STRING COLLATE UTF8_LCASE")
    assume(lcaseType.isDefined, s"Spark ${org.apache.spark.SPARK_VERSION} has no collations")
    val lcase = attr("c", lcaseType.get)
    val byLcase = Seq(asc(lcase))
    plan(
      Seq(win(agg(MinBy(i, lcase)), byK, runningRows), win(agg(Min(lcase)), byK, wholeRows),
        win(Rank(Seq(lcase)), byLcase), win(agg(Max(lcase)), byLcase, runningRange)),
      byLcase
    )
    assertMentions(reason(Seq(win(agg(new Mode(lcase)), byK, wholeRows))), "mode", "UTF8_LCASE")
  }

  test("row-by-row window functions (counter_diff, other libraries' ones) run over their own " +
    "frame only") {
    val f = RunningNonNulls(i)
    assert(plan(Seq(win(f, byK, runningRows))).functions.head.isInstanceOf[RowByRowSpec])
    // (as a plan from another analyzer could carry it: Spark's requires the function's own)
    val otherFrame =
      WindowExpression(f, WindowSpecDefinition(Nil, byK, rows(preceding(1), CurrentRow)))
    assertMentions(reason(Seq(otherFrame)), "runningnonnulls", "frame", "1 PRECEDING")
    assert(reasons(Seq(otherFrame)).map(_.id) == Seq(FallbackReason.UnsupportedFrame))
  }

  test("unsupported: lag of a VARIANT, which the window buffer cannot hold (Spark 4.0+)") {
    val variantType = typeOnThisLine("VARIANT")
    assume(variantType.isDefined, s"Spark ${org.apache.spark.SPARK_VERSION} has no VARIANT type")
    val variant = attr("v", variantType.get)
    assertMentions(reason(Seq(win(Lag(variant, Literal(1), Literal.create(null, variantType.get),
              false), byK))),
      "lag", "VARIANT")
  }

  test("unsupported: ntile with a non-positive bucket count") {
    assertMentions(reason(Seq(win(NTile(Literal(0)), byK))), "ntile", "0")
  }

  test(
    "unsupported: peers of an order key fastwindow cannot compare name the function, key and type") {
    val obj = attr("obj", ObjectType(classOf[String]))
    val byObj = Seq(asc(obj))
    assertMentions(reason(Seq(win(Rank(Seq(obj)), byObj)), byObj), "rank", "obj")
    assertMentions(reason(Seq(win(agg(sumOf(i)), byObj, runningRange)), byObj),
      "sum", FrameShape.RunningRange.sql)
    // the same function over a frame without peers is fine
    assert(check(Seq(win(agg(sumOf(i)), byObj, runningRows)), byObj).isRight)
  }

  test("supported: peers of struct and array keys, by Spark's ordering of them") {
    val byArr = Seq(asc(arr))
    assert(check(Seq(win(Rank(Seq(arr)), byArr), win(agg(sumOf(i)), byArr, runningRange)),
        byArr).isRight)
  }

  test("unsupported: a window expression that also reads input columns") {
    val e = Add(win(agg(sumOf(i)), byK, wholeRows), l)
    assertMentions(reason(Seq(e)), "reads input columns")
  }

  test("one unsupported function makes the whole node fall back, with that function's reason") {
    val supported = Seq(win(RowNumber(), byK), win(agg(sumOf(i)), byK, runningRows))
    val r = reason(supported :+ win(agg(countMinSketch), byK, wholeRows))
    assertMentions(r, "count_min_sketch")
    val r2 = reason(win(agg(Min(map)), byK, wholeRows) +: supported)
    assertMentions(r2, "min", "MAP")
  }

  test("the support matrix names every supported function and frame") {
    val json = WindowReport.supportJson
    // aggregates are listed with their aliases: "min, bool_and, every"
    for (entry <- WindowSupport.supportEntries) {
      assert(json.contains("\"" + entry.function + "\""), s"${entry.function} missing from $json")
    }
    val names = WindowSupport.supportEntries.flatMap(_.function.split(", "))
    for (name <- RankingKind.all.map(_.sql) ++ Seq(
        "lead",
        "lag",
        "stddev",
        "variance",
        "first_value",
        "last_value",
        "any_value",
        "bool_and",
        "bool_or",
        "every",
        "some",
        "any",
        "nth_value",
        "min_by",
        "max_by",
        "skewness",
        "kurtosis",
        "bit_and",
        "bit_or",
        "bit_xor",
        "product"
      )) {
      assert(names.contains(name), name)
    }
    assert(
      json.contains(FrameShape.RunningRange.sql) && json.contains(FrameShape.WholePartition.sql))
  }

  test("every reason of a node is kept, each with a stable id") {
    val all = reasons(Seq(win(agg(countMinSketch), byK, wholeRows), win(NTile(Literal(0)), byK),
        win(agg(Min(arr)), byK, runningRows), win(agg(sumOf(i)), byK, wholeRows)))
    assert(all.map(_.id) == Seq(FallbackReason.UnsupportedFunction,
      FallbackReason.UnsupportedArgument, FallbackReason.UnsupportedType))
    assertMentions(all.head.message, "count_min_sketch")
    assertMentions(all(1).message, "ntile")
    assertMentions(all(2).message, "min", "ARRAY<INT>")
  }

  test("ranking by ORDER BY NULL is supported: every row is a peer") {
    val byNull = Seq(asc(Literal.create(null, NullType)))
    assert(check(Seq(win(Rank(byNull.map(_.child)), byNull),
          win(agg(Count(Literal(1))), byNull, runningRange)), byNull).isRight)
  }
}

/** A row-by-row window function of another library: how many non-null inputs so far. */
case class RunningNonNulls(child: Expression) extends AggregateWindowFunction {
  private lazy val seen = AttributeReference("seen", IntegerType, nullable = false)()
  override def children: Seq[Expression] = Seq(child)
  override lazy val aggBufferAttributes: Seq[AttributeReference] = Seq(seen)
  override lazy val initialValues: Seq[Expression] = Seq(Literal(0))
  override lazy val updateExpressions: Seq[Expression] =
    Seq(If(IsNull(child), seen, Add(seen, Literal(1))))
  override lazy val evaluateExpression: Expression = seen
  override protected def withNewChildrenInternal(
      newChildren: IndexedSeq[Expression]): RunningNonNulls = copy(child = newChildren.head)
}

/** A user-defined aggregate (the deprecated UDAF API) that fastwindow leaves to Spark. */
@deprecated("exercises the deprecated UDAF API on purpose", "")
class SumOfLongs extends UserDefinedAggregateFunction {
  override def inputSchema: StructType = StructType(Seq(StructField("x", LongType)))
  override def bufferSchema: StructType = StructType(Seq(StructField("s", LongType)))
  override def dataType: DataType = LongType
  override def deterministic: Boolean = true
  override def initialize(buffer: MutableAggregationBuffer): Unit = buffer(0) = 0L
  override def update(buffer: MutableAggregationBuffer, input: Row): Unit =
    if (!input.isNullAt(0)) buffer(0) = buffer.getLong(0) + input.getLong(0)
  override def merge(buffer: MutableAggregationBuffer, other: Row): Unit =
    buffer(0) = buffer.getLong(0) + other.getLong(0)
  override def evaluate(buffer: Row): Any = buffer.getLong(0)
}

/** A typed Aggregator that fastwindow leaves to Spark. */
class CountLongs extends Aggregator[Long, Long, Long] {
  override def zero: Long = 0L
  override def reduce(b: Long, a: Long): Long = b + 1
  override def merge(b1: Long, b2: Long): Long = b1 + b2
  override def finish(reduction: Long): Long = reduction
  override def bufferEncoder: org.apache.spark.sql.Encoder[Long] = ExpressionEncoder[Long]()
  override def outputEncoder: org.apache.spark.sql.Encoder[Long] = ExpressionEncoder[Long]()
}
