package fastwindow.exec.window

import scala.annotation.nowarn
import scala.util.{Failure, Success, Try}

import org.apache.spark.{SparkException, SparkThrowable}
import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.{CatalystTypeConverters, InternalRow}
import org.apache.spark.sql.types.DataType

/**
 * `spark.fastwindow.codegen.mode=VERIFY`, for fastwindow's tests: a task runs its rows through the
 * generated evaluator and through the interpreted twin, and fails unless both give the same rows
 * (NaN equal to NaN, -0.0 unlike 0.0, decimals with their scale), or both fail with the same
 * error. The rows of the generated run are the task's output.
 *
 * Why: the twin differs from the generated evaluator only in how its ops are built, so one query
 * checked against Spark checks both, where a test per evaluator paid Spark's cost of a query twice.
 * The task's input and both outputs are held in memory, which only test data affords.
 */
object TwinCheck {

  def apply(rows: Iterator[InternalRow], types: Seq[DataType])(
      generated: Iterator[InternalRow] => Iterator[InternalRow],
      interpreted: Iterator[InternalRow] => Iterator[InternalRow]): Iterator[InternalRow] = {
    val input = rows.map(_.copy()).toArray
    def run(evaluate: Iterator[InternalRow] => Iterator[InternalRow]) =
      Try(evaluate(input.iterator).map(_.copy()).toArray)
    (run(generated), run(interpreted)) match {
      case (Success(fast), Success(twin)) =>
        difference(fast, twin, types).foreach(d => throw differ(d, null))
        fast.iterator
      case (Failure(fast), Failure(twin)) if sameError(fast, twin) => throw fast
      case (Failure(fast), Failure(twin)) =>
        throw differ(s"the generated evaluator failed with $fast, the interpreted one with $twin",
          fast)
      case (Failure(fast), Success(_)) =>
        throw differ(s"the generated evaluator failed ($fast), the interpreted one did not", fast)
      case (Success(_), Failure(twin)) =>
        throw differ(s"the interpreted evaluator failed ($twin), the generated one did not", twin)
    }
  }

  private def differ(what: String, cause: Throwable): Throwable =
    SparkException.internalError(s"fastwindow's evaluators disagree: $what", cause)

  @nowarn("cat=deprecation") // getErrorClass: the name every line has (getCondition from 4.0)
  private def sameError(a: Throwable, b: Throwable): Boolean =
    a.getClass == b.getClass && ((a, b) match {
      case (x: SparkThrowable, y: SparkThrowable) => x.getErrorClass == y.getErrorClass
      case _ => true
    })

  /** The first row and column where the two outputs differ, described; None if they agree. */
  private def difference(
      fast: Array[InternalRow],
      twin: Array[InternalRow],
      types: Seq[DataType]): Option[String] = {
    val toScala = types.map(CatalystTypeConverters.createToScalaConverter)
    def value(row: InternalRow, c: Int): Any =
      if (row.isNullAt(c)) null else toScala(c)(row.get(c, types(c)))
    val differences = for {
      i <- fast.indices.iterator
      c <- types.indices.iterator
      (a, b) = (value(fast(i), c), value(twin(i), c))
      if !same(a, b)
    } yield s"row $i, column $c: generated $a, interpreted $b"
    if (fast.length != twin.length)
      Some(s"${fast.length} rows generated, ${twin.length} interpreted")
    else if (differences.hasNext) Some(differences.next())
    else None
  }

  /** Equality as the tests compare results, deeply: floats by Java's equals (NaN = NaN,
   *  -0.0 != 0.0), decimals with their scale. */
  private def same(a: Any, b: Any): Boolean = (a, b) match {
    case (null, null) => true
    case (null, _) | (_, null) => false
    case (x: Array[Byte], y: Array[Byte]) => java.util.Arrays.equals(x, y)
    case (x: scala.collection.Map[_, _], y: scala.collection.Map[_, _]) =>
      x.size == y.size && x.forall { case (k, v) =>
        y.exists { case (k2, v2) => same(k, k2) && same(v, v2) }
      }
    case (x: Iterable[_], y: Iterable[_]) =>
      x.size == y.size && x.iterator.zip(y.iterator).forall { case (p, q) => same(p, q) }
    case (x: Row, y: Row) => same(x.toSeq, y.toSeq)
    case (x: java.lang.Double, y: java.lang.Double) => x.equals(y)
    case (x: java.lang.Float, y: java.lang.Float) => x.equals(y)
    case _ => a == b
  }
}
