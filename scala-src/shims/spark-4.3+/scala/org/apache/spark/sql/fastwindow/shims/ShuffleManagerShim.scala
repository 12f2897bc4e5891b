package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.{ShuffleDependency, SparkEnv}
import org.apache.spark.shuffle.ShuffleManager

/** Spark 4.3+: a shuffle's manager depends on its kind (blocking or pipelined). */
object ShuffleManagerShim {
  def managerFor(dependency: ShuffleDependency[_, _, _]): ShuffleManager =
    SparkEnv.get.shuffleManagerFor(dependency)
}
