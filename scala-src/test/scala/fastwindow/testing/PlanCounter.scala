package fastwindow.testing

import java.io.{FileWriter, PrintWriter}

import scala.collection.mutable

import org.apache.spark.scheduler.{SparkListener, SparkListenerEvent}
import org.apache.spark.sql.execution.SparkPlanInfo
import org.apache.spark.sql.execution.ui.{SparkListenerSQLAdaptiveExecutionUpdate, SparkListenerSQLExecutionEnd, SparkListenerSQLExecutionStart}

/**
 * Counts, for every SQL execution of a Spark application, the window operators of its final
 * plan: `FastWindow` (fastwindow ran it) and `Window` (Spark did). Registered with
 * `spark.extraListeners=fastwindow.testing.PlanCounter` by the runner of Spark's own test suites
 * (`tests/spark_suites.py`), which could not otherwise tell whether fastwindow ran their queries.
 * Each finished execution appends one line `<FastWindow nodes> <Window nodes>` to the file named
 * by the system property `fastwindow.planCounter.file`.
 */
class PlanCounter extends SparkListener {
  private val plans = mutable.Map.empty[Long, SparkPlanInfo]
  private val file = sys.props.get("fastwindow.planCounter.file")

  override def onOtherEvent(event: SparkListenerEvent): Unit = synchronized {
    event match {
      case e: SparkListenerSQLExecutionStart => plans(e.executionId) = e.sparkPlanInfo
      case e: SparkListenerSQLAdaptiveExecutionUpdate => plans(e.executionId) = e.sparkPlanInfo
      case e: SparkListenerSQLExecutionEnd =>
        plans.remove(e.executionId).foreach(record)
      case _ =>
    }
  }

  private def record(plan: SparkPlanInfo): Unit = file.foreach { path =>
    def count(node: SparkPlanInfo, name: String): Int =
      (if (node.nodeName == name) 1 else 0) + node.children.map(count(_, name)).sum
    val out = new PrintWriter(new FileWriter(path, true))
    try out.println(s"${count(plan, "FastWindow")} ${count(plan, "Window")}")
    finally out.close()
  }
}
