package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.{Dataset, SparkSession}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.internal.SessionState
import org.apache.spark.sql.types.DataType

/** Spark 3.5: every session and Dataset is classic (has a JVM plan); strings have no collations. */
object ClassicShim {
  def sessionState(session: SparkSession): Option[SessionState] = Some(session.sessionState)

  def executedPlan(df: Dataset[_]): Option[SparkPlan] = Some(df.queryExecution.executedPlan)

  /** Whether equal values of `dataType` have equal bytes (no collations before 4.0). */
  def isBinaryStable(dataType: DataType): Boolean = true
}
