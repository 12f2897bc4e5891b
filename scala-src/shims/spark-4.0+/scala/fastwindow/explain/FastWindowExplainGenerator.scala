package fastwindow.explain

import org.apache.spark.sql.ExtendedExplainGenerator
import org.apache.spark.sql.execution.SparkPlan

/**
 * Adds fastwindow's window report to `EXPLAIN EXTENDED` (via spark.sql.extendedExplainProviders,
 * which Spark has from 4.0 on; on 3.5, `fastwindow.explain(df)` shows the same report).
 */
class FastWindowExplainGenerator extends ExtendedExplainGenerator {
  override def title: String = "fastwindow"
  override def generateExtendedInfo(plan: SparkPlan): String =
    WindowReport.render(WindowReport.of(plan))
}
