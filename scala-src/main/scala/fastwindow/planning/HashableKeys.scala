package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.{Expression, KnownFloatingPointNormalized}
import org.apache.spark.sql.types.{DoubleType, FloatType}

import fastwindow.functions.TypeSet

/**
 * Which PARTITION BY keys fastwindow's hash operators (top-k per group, whole-partition
 * aggregates) can group by: those whose equal values are equal bytes, since groups are found by
 * hashing the keys' bytes. Floating keys count once Spark's optimizer normalized them
 * (`KnownFloatingPointNormalized`: -0.0 to 0.0, one NaN); other keys by their type
 * ([[TypeSet.byteStable]]).
 */
object HashableKeys {

  def hashable(key: Expression): Boolean = key match {
    case KnownFloatingPointNormalized(_) => key.dataType == FloatType || key.dataType == DoubleType
    case _ => TypeSet.byteStable.contains(key.dataType)
  }
}
