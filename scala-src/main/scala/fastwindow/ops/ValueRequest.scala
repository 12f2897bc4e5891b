package fastwindow.ops

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.DataType

/**
 * What a [[ValueOps]] is made from: the value one function copies into the result row at
 * `ordinal`.
 *
 * @param input   bound to the columns (a column's ordinal or a constant)
 * @param default bound to the columns; None writes null
 */
final case class ValueRequest(
    input: Expression,
    default: Option[Expression],
    resultType: DataType,
    ordinal: Int)
