package fastwindow.codegen

import org.apache.spark.sql.catalyst.InternalRow

/**
 * Aggregation buffers folded over rows in fields of a generated class, so that a row costs the
 * reads of the columns its updates name and the updates themselves, not a projection over the
 * buffer joined to the row: the map tasks of a window spread over ranges fold every row into
 * its range's state this way ([[fastwindow.exec.acrosstasks.StateFold]]).
 */
trait GeneratedFold {

  /** Starts from `state` (the buffers side by side). */
  def load(state: InternalRow): Unit

  /** Applies the update expressions to the buffers and `row` (Spark's errors are thrown). */
  def update(row: InternalRow): Unit

  /** Writes the buffers into `out`. */
  def store(out: InternalRow): Unit
}
