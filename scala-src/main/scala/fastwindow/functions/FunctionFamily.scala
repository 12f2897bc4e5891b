package fastwindow.functions

import scala.reflect.ClassTag

import org.apache.spark.sql.catalyst.expressions.{Expression, SortOrder, SpecifiedWindowFrame}
import org.apache.spark.sql.fastwindow.shims.ClassicShim
import org.apache.spark.sql.types._

import fastwindow.columns.{ColumnLayout, ColumnType}
import fastwindow.frames.PeerGroups
import fastwindow.kernels.Kernel
import fastwindow.model.{BufferedFrameFunction, FallbackReason, FunctionSpec}
import fastwindow.ops.{FunctionOps, FunctionRequests, ValueRequest}

/**
 * One family of window functions fastwindow runs (ranking, offset, declarative aggregate,
 * nth_value, ...), declared once: which functions it takes and how it checks them (with a
 * reason when it cannot run one), the spec it plans (which says what the function reads, whether
 * and how it streams), what its kernel needs generated, its kernel, and its rows of the support
 * table. Everything else — the support check, the evaluator, the docs — is derived from the list
 * of families in [[WindowSupport.families]], the way spark-rapids derives its checks and docs
 * from one declaration per expression.
 *
 * Adding a family: one subclass with its spec class, one kernel (`fastwindow.kernels`), an entry
 * in [[WindowSupport.families]], and tests.
 */
abstract class FunctionFamily[S <: FunctionSpec](implicit specTag: ClassTag[S]) {

  /**
   * The class of the specs it plans. Besides telling its specs from others', it registers the
   * class as part of the plan: the plan is built once and read by every operator's copy of the
   * algorithm classes, which share this class rather than copy it (`AlgorithmIsolation`).
   */
  final def specClass: Class[_ <: FunctionSpec] =
    specTag.runtimeClass.asSubclass(classOf[FunctionSpec])

  /** The `kind` column of the support table. */
  def kind: String

  /** The SQL names of the functions it runs, as reasons list them. */
  def sqlNames: Seq[String]

  /** Whether its functions are aggregates (listed as such where an aggregate falls back). */
  def runsAggregates: Boolean

  /**
   * `expression` (a window expression of a logical Window) with each expression over a window
   * function that this family computes as one function (e.g. `size(collect_set(x) OVER w)`)
   * replaced by a window expression of its own, which [[plan]] then takes. Planning only: the
   * operator keeps Spark's expressions.
   */
  def fuse(expression: Expression): Expression = expression

  /**
   * Plans `function` (the window function of a window expression with `frame` and `orderSpec`)
   * at result slot `ordinal`: None when it is not this family's, else the spec or the reason it
   * cannot run.
   */
  def plan(
      function: Expression,
      frame: SpecifiedWindowFrame,
      orderSpec: Seq[SortOrder],
      ordinal: Int): Option[Either[FallbackReason, S]]

  /** What `spec`'s kernel needs generated (or interpreted), reading columns of `layout`. */
  def requests(spec: S, layout: ColumnLayout): FunctionRequests = FunctionRequests()

  /** The kernel of `spec`, over the ops its requests produced. */
  def kernel(spec: S, ops: FunctionOps, peers: PeerGroups): Kernel

  /** Its rows of the support table. */
  def supportEntries: Seq[SupportEntry]

  final def owns(spec: FunctionSpec): Boolean = specClass.isInstance(spec)
  final def requestsOf(spec: FunctionSpec, layout: ColumnLayout): FunctionRequests =
    requests(specClass.cast(spec).asInstanceOf[S], layout)
  final def kernelOf(spec: FunctionSpec, ops: FunctionOps, peers: PeerGroups): Kernel =
    kernel(specClass.cast(spec).asInstanceOf[S], ops, peers)
}

/**
 * A family whose functions read one value per row over a frame of a buffered partition
 * ([[BufferedFrameFunction]]: percentiles, modes, distinct values, collections, sketches): its
 * kernel reads that value's column and the frame's RANGE edges, nothing else.
 */
abstract class BufferedFrameFamily[S <: BufferedFrameFunction](implicit specTag: ClassTag[S])
  extends FunctionFamily[S] {
  override def requests(spec: S, layout: ColumnLayout): FunctionRequests =
    FunctionRequests(
      values = Seq(ValueRequest(layout.bind(spec.value), None, spec.value.dataType, 0)),
      rangeEdges = FramePlanning.requests(spec.frame, layout))
}

/** One row of the support table (`python -m fastwindow support`, the README). */
final case class SupportEntry(function: String, kind: String, frames: Seq[String], inputs: String)

/** A named set of data types, described for users. */
final case class TypeSet(description: String, contains: DataType => Boolean) {
  def as(newDescription: String): TypeSet = copy(description = newDescription)
}

object TypeSet {
  val numeric: TypeSet = TypeSet(
    "tinyint, smallint, int, bigint, float, double, decimal",
    {
      case ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType => true
      case _: DecimalType => true
      case _ => false
    }
  )

  /** What sum and avg add: numbers and ANSI intervals (added with Spark's overflow check). */
  val summable: TypeSet = TypeSet(
    s"${numeric.description}, ANSI intervals",
    {
      case _: YearMonthIntervalType | _: DayTimeIntervalType => true
      case other => numeric.contains(other)
    })

  val integral: TypeSet = TypeSet(
    "tinyint, smallint, int, bigint",
    {
      case ByteType | ShortType | IntegerType | LongType => true
      case _ => false
    })

  /**
   * Types fastwindow compares (peers, min/max, min_by/max_by orderings): always with Spark's own
   * comparison of the type, so collated strings compare by their collation.
   */
  val orderable: TypeSet = TypeSet(
    "numeric, boolean, string (any collation), binary, date, timestamp, timestamp_ntz, " +
      "ANSI intervals",
    {
      case _: StringType => true
      case BooleanType | BinaryType | DateType | TimestampType | TimestampNTZType => true
      case _: YearMonthIntervalType | _: DayTimeIntervalType => true
      case other => numeric.contains(other)
    }
  )

  /**
   * ORDER BY key types whose peers fastwindow finds: orderable ones, structs and arrays of them
   * (equal as Spark's ordering compares them), and NULL (ORDER BY NULL, all rows peers).
   */
  val peerKey: TypeSet = TypeSet(
    s"${orderable.description}, structs and arrays of these, void (ORDER BY NULL)",
    t => t == NullType || nestedOrderable(t))

  private def nestedOrderable(t: DataType): Boolean = t match {
    case a: ArrayType => nestedOrderable(a.elementType)
    case s: StructType => s.fields.forall(f => nestedOrderable(f.dataType))
    case other => orderable.contains(other)
  }

  /** Order key types of RANGE frames with value offsets (those Spark accepts). */
  val rangeKey: TypeSet = TypeSet(
    s"${numeric.description}, date, timestamp, timestamp_ntz, ANSI intervals",
    {
      case DateType | TimestampType | TimestampNTZType => true
      case _: YearMonthIntervalType | _: DayTimeIntervalType => true
      case other => numeric.contains(other)
    }
  )

  /**
   * Types whose equal values are equal bytes, so that values can be grouped by hashing their
   * bytes and an aggregate that keeps one of several equal values keeps the same bytes whichever
   * it sees first. Not floating types (0.0 and -0.0, NaNs), strings under non-binary collations,
   * nor (conservatively) nested types.
   */
  val byteStable: TypeSet = TypeSet(
    "boolean, integral, decimal, date, timestamp, timestamp_ntz, binary, ANSI intervals, " +
      "strings of binary collations",
    {
      case BooleanType | ByteType | ShortType | IntegerType | LongType | DateType | TimestampType |
          TimestampNTZType | BinaryType | _: DecimalType | _: YearMonthIntervalType |
          _: DayTimeIntervalType => true
      case s: StringType => ClassicShim.isBinaryStable(s)
      case _ => false
    }
  )

  val anyBufferable: TypeSet = TypeSet(
    "any type except variant, user-defined and object types",
    ColumnType.isSupported)
}
