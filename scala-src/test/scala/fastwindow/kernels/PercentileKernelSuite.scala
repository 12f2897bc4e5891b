package fastwindow.kernels

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate._
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.WindowTestKit._

/**
 * Percentiles over ROWS frames of every shape, on both evaluators, against Spark's own
 * percentile aggregate run over each frame's rows (a fresh buffer per row: the O(n w) definition).
 */
class PercentileKernelSuite extends AnyFunSuite {

  private val k = attr("k", IntegerType, nullable = false)
  private val i = attr("i", IntegerType)
  private val d = attr("d", DoubleType)
  private val schema = Seq(k, i, d)
  private val order = Seq(asc(k))

  private def rows(frame: String): SpecifiedWindowFrame = frame match {
    case "whole" => wholeRows
    case "running" => runningRows
    case other =>
      val Array(lower, upper) = other.split(",").map(_.trim)
      def bound(b: String): Expression = b match {
        case "-inf" => UnboundedPreceding
        case "inf" => UnboundedFollowing
        case "0" => CurrentRow
        case n => Literal(n.toInt)
      }
      SpecifiedWindowFrame(RowFrame, bound(lower), bound(upper))
  }

  private val frames = Seq("whole", "running", "-3, 0", "-2, 2", "-5, -2", "1, 3", "0, inf",
    "-inf, -2", "-1000, 0")

  private def functions: Seq[PercentileBase] = Seq(
    new Percentile(i, Literal(0.5)),
    new Percentile(d, Literal(0.3)),
    new Percentile(i,
      Literal.create(ArrayData.toArrayData(Array(0.0, 0.25, 0.9, 1.0)),
        ArrayType(DoubleType, containsNull = false))),
    new Percentile(d, Literal(0.75), Literal(3L)),
    Percentile(i, Literal(0.4), Literal(1L), reverse = true),
    PercentileDisc(d, Literal(0.7)),
    PercentileDisc(i, Literal(0.2), reverse = true),
    PercentileDisc(i, Literal(0.6), legacyCalculation = true)
  )

  /** Spark's percentile over `frameRows` of `part`. */
  private def spark(f: PercentileBase, part: Seq[InternalRow], frameRows: Range): Any = {
    val bound = BindReferences.bindReference(f, schema).asInstanceOf[PercentileBase]
    val buffer = bound.createAggregationBuffer()
    frameRows.foreach(r => bound.update(buffer, part(r)))
    bound.eval(buffer)
  }

  private def frameOf(frame: SpecifiedWindowFrame, r: Int, n: Int): Range = {
    def offset(e: Expression, unbounded: Int): Int = e match {
      case UnboundedPreceding => -n
      case UnboundedFollowing => n
      case CurrentRow => 0
      case l: Literal => l.value.asInstanceOf[Int]
    }
    val lo = math.max(0, r + offset(frame.lower, -n))
    val hi = math.min(n - 1, r + offset(frame.upper, n))
    lo to hi
  }

  private def randomPartition(rng: Random, n: Int): Seq[InternalRow] = (0 until n).map { r =>
    val int = if (rng.nextDouble() < 0.15) null else Int.box(rng.nextInt(9) - 4)
    val double: Any = rng.nextDouble() match {
      case x if x < 0.15 => null
      case x if x < 0.2 =>
        Seq(Double.NaN, Double.PositiveInfinity, Double.NegativeInfinity,
          1e308, -1e308)(rng.nextInt(5))
      case _ => rng.nextInt(40) / 8.0 - 2.0
    }
    row(r, int, double)
  }

  for (flavor <- flavors; frame <- frames) {
    test(s"percentiles over ROWS $frame, $flavor, against Spark's percentile per frame") {
      val windowFrame = rows(frame)
      val exprs = functions.map(f => win(agg(f), order, windowFrame))
      val layout = layoutOf(exprs, order, schema)
      val rng = new Random(frame.hashCode)
      for (n <- Seq(1, 2, 7, 60)) {
        val part = randomPartition(rng, n)
        val results = runPartition(flavor.create(layout), layout, part)
        for (r <- 0 until n; (f, j) <- functions.zipWithIndex) {
          val expected = spark(f, part, frameOf(windowFrame, r, n))
          assert(same(results(r)(j), expected, f.dataType),
            s"n=$n row $r ${f.prettyName}: ${show(results(r)(j), f.dataType)} but Spark " +
              show(expected, f.dataType))
        }
      }
    }
  }
}
