package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * An aggregate whose state is that of a few rows ([[StateFold.decidedByRows]]): aggregate
 * `aggregate` of a [[StateFold]], which takes the last row (else the first `rows` rows) by the
 * window's order whose `input` is not null (any row unless `ignoreNulls`). first and last take
 * one row; nth_value(x, n) the first n. Also the rows lag/lead IGNORE NULLS read in the ranges
 * around a range (`aggregate` -1: see [[DecidingRows.forNonNullHalos]]).
 */
final case class DecidingRow(aggregate: Int, last: Boolean, ignoreNulls: Boolean,
    input: Expression, rows: Int = 1)
