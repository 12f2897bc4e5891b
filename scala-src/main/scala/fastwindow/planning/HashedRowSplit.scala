package fastwindow.planning

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, Literal, Murmur3Hash}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

import fastwindow.config.FastWindowLimits

/**
 * How the rows of a window without ORDER BY are split over tasks (see [[AcrossTasksSupport]]):
 * into ranges of one int key, a hash of the row, whose bounds split the ints evenly
 * (`fastwindow.exec.acrosstasks.RangeBounds.setEvenInts`).
 */
object HashedRowSplit {

  /**
   * How many ranges the rows of a window without ORDER BY are hashed into. No result depends on
   * it, and a map task's rows go to all of them at random (not in runs, as ranges of a table
   * written in order do), so each costs the shuffle's writer: with adaptive execution (which
   * would coalesce the ranges, but only after every map task wrote all of them), four per core
   * of the cluster, at most Spark's shuffle partitions; without it, Spark's shuffle partitions
   * (what each range costs the writer: docs/support.md, windows without ORDER BY either).
   */
  def ranges: Int = {
    val conf = SQLConf.get
    if (!conf.adaptiveExecutionEnabled) conf.numShufflePartitions
    else
      math.min(conf.numShufflePartitions, 4 * SparkSession.active.sparkContext.defaultParallelism)
  }

  /**
   * What splits the rows of a window without ORDER BY (whose results do not depend on which task
   * a row goes to): a hash of up to `spark.fastwindow.acrossTasks.hashedColumns` of their
   * columns (not maps, which Spark cannot hash), the same for equal rows whichever task computes them again. Rows equal in
   * those columns share a range; with no such column, all rows do (one task).
   */
  def key(columns: Seq[Attribute]): Expression = {
    def holdsMap(t: DataType): Boolean = t match {
      case _: MapType => true
      case a: ArrayType => holdsMap(a.elementType)
      case s: StructType => s.fields.exists(f => holdsMap(f.dataType))
      case _ => false
    }
    val hashed = columns.filterNot(c => holdsMap(c.dataType))
    val most = FastWindowLimits.ACROSS_TASKS_HASHED_COLUMNS.get()
    if (hashed.isEmpty) Literal(0) else Murmur3Hash(hashed.take(most), 42)
  }
}
