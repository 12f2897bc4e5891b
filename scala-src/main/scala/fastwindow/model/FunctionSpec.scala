package fastwindow.model

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.DataType

/**
 * One window function of a [[WindowPlan]], as its family planned it. The family (see
 * `fastwindow.functions.FunctionFamily`) defines the concrete class and builds its kernel; what
 * the operator needs to know about every function is here.
 */
trait FunctionSpec extends Serializable {

  /** Slot of the function's result in the row of function results. */
  def ordinal: Int
  def resultType: DataType

  /** The value expressions (evaluated once per input row, into columns) this function reads. */
  def inputs: Seq[Expression]
  def needsPeers: Boolean

  /** None when the function needs its whole partition buffered. */
  def streamBounds: Option[StreamBounds]

  /**
   * How the function streams over a range of a window spread over tasks, whose seed tells what
   * one task learns only at its partition's end (the window's size, a whole frame's state).
   */
  def seededStreamBounds: Option[StreamBounds] = streamBounds

  /** Whether writing a result reads buffered rows (columns or peer flags). */
  def readsRowsOnWrite: Boolean

  /** Whether every row of a partition gets the same result. */
  def resultPerPartition: Boolean = false

  /** How reasons and reports name the function and its frame. */
  def describe: String

  /** What the function is to DataFusion Comet's native window, when Comet is in the session. */
  def besideComet: BesideComet = BesideComet.NotNative(s"Comet does not run $describe natively")
}
