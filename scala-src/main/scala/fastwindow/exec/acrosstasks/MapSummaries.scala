package fastwindow.exec.acrosstasks

import org.apache.spark.util.AccumulatorV2

/**
 * Each map task's summaries of the ranges (null for a range without its rows), by map index.
 * Adding a map index again replaces its summaries: a task that runs again sends the same ones.
 */
final class MapSummaries
  extends AccumulatorV2[(Int, Array[RangeSummary]), java.util.Map[Integer, Array[RangeSummary]]] {
  private val byMap = new java.util.concurrent.ConcurrentHashMap[Integer, Array[RangeSummary]]()

  override def isZero: Boolean = byMap.isEmpty
  override def copy(): MapSummaries = {
    val copied = new MapSummaries
    copied.byMap.putAll(byMap)
    copied
  }
  override def reset(): Unit = byMap.clear()
  override def add(v: (Int, Array[RangeSummary])): Unit = byMap.put(v._1, v._2)
  override def merge(other: AccumulatorV2[(Int, Array[RangeSummary]),
        java.util.Map[Integer, Array[RangeSummary]]]): Unit = byMap.putAll(other.value)
  override def value: java.util.Map[Integer, Array[RangeSummary]] = byMap
}
