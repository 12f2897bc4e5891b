package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Literal

import fastwindow.buffer.Column
import fastwindow.codegen.GenContext
import fastwindow.exec.ColumnSpec
import fastwindow.planning.OffsetSpec

/**
 * lead and lag: O(1) per row.
 *
 * Without IGNORE NULLS the result for row i is the input at row i + offset (lag's offset is
 * negative), or the default evaluated on row i when that row is outside the partition. With
 * IGNORE NULLS it is the |offset|-th non-null input strictly after (lead) or before (lag) row i:
 * `finishPartition` lists the positions of the non-null inputs once, and a cursor into that list
 * moves forward with i, so a partition costs O(n). An offset of 0 returns the current row's input,
 * null or not, as Spark does. Without IGNORE NULLS, lead needs the next `offset` rows and lag the
 * previous |offset| rows only, so both stream; a negative buffered index then still means "before
 * the partition start", because a streaming evaluator keeps |offset| rows of history.
 */
object OffsetKernel {

  /** The default value: a constant (possibly null) or a column evaluated per row. */
  sealed trait Default
  final case class ConstantDefault(value: Any) extends Default
  final case class ColumnDefault(column: Column) extends Default

  final class Interpreted(spec: OffsetSpec, input: Column, default: Default) extends Kernel {
    private val ordinal = spec.ordinal
    private val offset = spec.offset
    private val skipsNulls = spec.ignoreNulls && offset != 0
    private var nonNullRows = new Array[Int](16)
    private var nonNullCount = 0
    private var cursor = 0

    // IGNORE NULLS needs the whole partition (it is never streamed), so its list is built here.
    override def finishPartition(n: Int): Unit = {
      if (skipsNulls) {
        if (nonNullRows.length < n) nonNullRows = new Array[Int](n)
        nonNullCount = 0
        var j = 0
        while (j < n) {
          if (!input.isNull(j)) {
            nonNullRows(nonNullCount) = j
            nonNullCount += 1
          }
          j += 1
        }
        cursor = 0
      }
    }

    /** Row whose input is the result for row i, or -1 when the default applies. */
    private def sourceRow(i: Int, n: Int): Int = {
      if (!skipsNulls) {
        val target = i.toLong + offset
        if (target >= 0 && target < n) target.toInt else -1
      } else if (offset > 0) {
        while (cursor < nonNullCount && nonNullRows(cursor) <= i) cursor += 1
        val p = cursor.toLong + offset - 1
        if (p < nonNullCount) nonNullRows(p.toInt) else -1
      } else {
        while (cursor < nonNullCount && nonNullRows(cursor) < i) cursor += 1
        val p = cursor.toLong + offset
        if (p >= 0) nonNullRows(p.toInt) else -1
      }
    }

    override def write(i: Int, n: Int, out: InternalRow): Unit = {
      val source = sourceRow(i, n)
      val value = if (source >= 0) input.get(source) else default match {
        case ConstantDefault(v) => v
        case ColumnDefault(c) => c.get(i)
      }
      if (value == null) out.setNullAt(ordinal) else out.update(ordinal, value)
    }
  }

  def generate(
      spec: OffsetSpec,
      input: ColumnSpec,
      defaultColumn: Option[ColumnSpec],
      g: GenContext): KernelCode = {
    val offset = spec.offset
    val source = g.freshName("source")
    val copyFrom = (row: String, column: ColumnSpec) =>
      s"""
         |if (${g.isNull(column, row)}) {
         |  ${g.setNull(spec.ordinal)}
         |} else {
         |  ${g.setResult(spec.ordinal, spec.resultType, g.value(column, row))}
         |}
       """.stripMargin
    val useDefault = defaultColumn match {
      case Some(column) => copyFrom("i", column)
      case None =>
        val constant = spec.default.map(d => Literal.create(d.eval(), d.dataType))
          .getOrElse(Literal.create(null, spec.resultType))
        val ev = constant.genCode(g.ctx)
        s"""
           |${ev.code}
           |if (${ev.isNull}) {
           |  ${g.setNull(spec.ordinal)}
           |} else {
           |  ${g.setResult(spec.ordinal, spec.resultType, ev.value.toString)}
           |}
         """.stripMargin
    }

    val (prepare, findSource) = if (!spec.ignoreNulls || offset == 0) {
      ("", s"""
              |long $source = (long) i + ($offset);
              |if ($source >= n) $source = -1;
            """.stripMargin)
    } else {
      val rows = g.field("int[]", "nonNullRows", "new int[16]")
      val count = g.intField("nonNullCount")
      val cursor = g.intField("nonNullCursor")
      val collect =
        s"""
           |if ($rows.length < n) $rows = new int[n];
           |$count = 0;
           |$cursor = 0;
           |for (int j = 0; j < n; j++) {
           |  if (!${g.isNull(input, "j")}) $rows[$count++] = j;
           |}
         """.stripMargin
      val find = if (offset > 0) {
        s"""
           |while ($cursor < $count && $rows[$cursor] <= i) $cursor++;
           |long $source = (long) $cursor + ($offset - 1L);
           |$source = $source < $count ? $rows[(int) $source] : -1;
         """.stripMargin
      } else {
        s"""
           |while ($cursor < $count && $rows[$cursor] < i) $cursor++;
           |long $source = (long) $cursor + ($offset);
           |$source = $source >= 0 ? $rows[(int) $source] : -1;
         """.stripMargin
      }
      (collect, find)
    }

    KernelCode(
      prepare,
      s"""
         |$findSource
         |if ($source >= 0) {
         |  final int src = (int) $source;
         |  ${copyFrom("src", input)}
         |} else {
         |  $useDefault
         |}
       """.stripMargin)
  }
}
