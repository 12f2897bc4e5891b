package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.{ShuffleDependency, SparkEnv}
import org.apache.spark.shuffle.ShuffleManager

/** Spark 3.5 to 4.2: one shuffle manager serves every shuffle. */
object ShuffleManagerShim {
  def managerFor(dependency: ShuffleDependency[_, _, _]): ShuffleManager =
    SparkEnv.get.shuffleManager
}
