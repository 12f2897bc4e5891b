package org.apache.spark.sql.fastwindow.shims

import org.apache.spark.sql.{Dataset, SparkSession}
import org.apache.spark.sql.catalyst.util.UnsafeRowUtils
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.internal.SessionState
import org.apache.spark.sql.types.DataType

/**
 * Spark 4.0+: sessions and Datasets are classic (a JVM plan) or Connect (none); strings carry
 * collations, under which equal values may differ in bytes.
 */
object ClassicShim {
  def sessionState(session: SparkSession): Option[SessionState] = session match {
    case classic: org.apache.spark.sql.classic.SparkSession => Some(classic.sessionState)
    case _ => None
  }

  def executedPlan(df: Dataset[_]): Option[SparkPlan] = df match {
    case classic: org.apache.spark.sql.classic.Dataset[_] =>
      Some(classic.queryExecution.executedPlan)
    case _ => None
  }

  /** Whether equal values of `dataType` have equal bytes (false under non-binary collations). */
  def isBinaryStable(dataType: DataType): Boolean = UnsafeRowUtils.isBinaryStable(dataType)
}
