package org.apache.spark.sql.fastwindow

import scala.concurrent.duration.Duration

import org.apache.spark.{MapOutputTrackerMaster, ShuffleDependency, SparkContext, SparkEnv}
import org.apache.spark.util.ThreadUtils

/** Runs the map side of a shuffle on its own, as adaptive execution does for a query stage. */
object MapStage {

  /**
   * Waits until every map task of `dependency` has written its output (at once when they have,
   * e.g. under adaptive execution, which materialises the stage before the operators above it run).
   */
  def materialize(sc: SparkContext, dependency: ShuffleDependency[_, _, _]): Unit = {
    val tracker = SparkEnv.get.mapOutputTracker.asInstanceOf[MapOutputTrackerMaster]
    val id = dependency.shuffleId
    val maps = dependency.rdd.getNumPartitions
    val written = tracker.containsShuffle(id) && tracker.getNumAvailableOutputs(id) == maps
    if (maps > 0 && !written) ThreadUtils.awaitResult(sc.submitMapStage(dependency), Duration.Inf)
  }
}
