package fastwindow.ops

import org.apache.spark.sql.catalyst.InternalRow

/** Fills row `r` of every column from an input row (the evaluator has made room for it). */
abstract class ColumnExtractor {
  def extract(row: InternalRow, r: Int): Unit
}
