package fastwindow.codegen

import org.apache.spark.sql.catalyst.expressions.{Descending, Literal, NullsFirst}
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode
import org.apache.spark.sql.types.NullType

import fastwindow.columns.ColumnType
import fastwindow.ops.{ColumnExtractor, PeerKeys, RangeEdgeOps, RangeEdgeRequest, ValueOps, ValueRequest}

/**
 * Generates the row-level ops: filling the columns, comparing peers, RANGE edges and copying
 * values (the interpreted twins are in `fastwindow.ops.InterpretedOps`). Each is the source of an
 * inner class of the generated ops class.
 */
object RowCodegen {

  /**
   * Evaluates each column's input expression on the input row and stores it (copied where the
   * value may point into the row, which its producer reuses), one method per column.
   */
  def extractor(name: String, g: GenContext): String = {
    val ctx = g.ctx
    ctx.INPUT_ROW = "row"
    ctx.currentVars = null
    val evals = ctx.generateExpressions(g.layout.columns.map(_.bound))
    val calls = g.layout.columns.zip(evals).map { case (c, ev) =>
      val store = ColumnType.ownedCopyCode(c.dataType, ev.value.toString)
      g.method(
        "extract",
        "void",
        "InternalRow row, int r",
        s"""
           |${ev.code}
           |${g.columnField(c)}.nulls()[r] = ${ev.isNull};
           |if (!${ev.isNull}) ${g.columnField(c)}.values()[r] = $store;
         """.stripMargin
      ) + "(row, r);"
    }
    s"""
       |final class $name extends ${classOf[ColumnExtractor].getName} {
       |  public void extract(InternalRow row, int r) {
       |    ${calls.mkString("\n")}
       |  }
       |}
     """.stripMargin
  }

  /** NULL-typed keys (ORDER BY NULL) hold only nulls, which are peers: they are skipped. */
  def peerKeys(name: String, g: GenContext): String = {
    val checks = g.layout.peerKeyColumns.filter(_.dataType != NullType).map { c =>
      s"""
         |if (${g.isNull(c, "a")} != ${g.isNull(c, "b")}) return false;
         |if (!${g.isNull(c, "a")} &&
         |    !(${g.ctx.genEqual(c.dataType, g.value(c, "a"), g.value(c, "b"))})) return false;
       """.stripMargin
    }
    s"""
       |final class $name extends ${classOf[PeerKeys].getName} {
       |  public boolean same(int a, int b) {
       |    ${checks.mkString}
       |    return true;
       |  }
       |}
     """.stripMargin
  }

  def rangeEdge(name: String, request: RangeEdgeRequest, g: GenContext): String = {
    val keyType = request.key.dataType
    val javaType = g.javaType(keyType)
    val key = (row: String) => g.evaluate(request.key, g.columnVars(row))
    val keyAtI = key("i")
    val edge = g.evaluate(request.bound, Seq(ExprCode(keyAtI.isNull, keyAtI.value)))
    val keyAtJ = key("j")
    val nullsFirst = request.order.nullOrdering == NullsFirst
    val c = g.ctx.genComp(keyType, keyAtJ.value.toString, "edgeValue")
    s"""
       |final class $name extends ${classOf[RangeEdgeOps].getName} {
       |  private boolean edgeIsNull;
       |  private $javaType edgeValue;
       |
       |  public void setEdge(int i) {
       |    ${keyAtI.code}
       |    ${edge.code}
       |    edgeIsNull = ${edge.isNull};
       |    edgeValue = ${edge.value};
       |  }
       |
       |  public int compareToEdge(int j) {
       |    ${keyAtJ.code}
       |    if (${keyAtJ.isNull} || edgeIsNull) {
       |      if (${keyAtJ.isNull} && edgeIsNull) return 0;
       |      return ${keyAtJ.isNull} == $nullsFirst ? -1 : 1;
       |    }
       |    final int c = $c;
       |    return ${if (request.order.direction == Descending) "-c" else "c"};
       |  }
       |}
     """.stripMargin
  }

  def value(name: String, request: ValueRequest, g: GenContext): String = {
    val at = (row: String) => g.evaluate(request.input, g.columnVars(row))
    val input = at("row")
    val default = g.evaluate(
      request.default.getOrElse(Literal.create(null, request.resultType)), g.columnVars("row"))
    val isNull = at("row")
    s"""
       |final class $name extends ${classOf[ValueOps].getName} {
       |  public boolean isNull(int row) {
       |    ${isNull.code}
       |    return ${isNull.isNull};
       |  }
       |
       |  public void write(int row, InternalRow out) {
       |    ${input.code}
       |    ${g.writeResult(request.ordinal, request.resultType, input)}
       |  }
       |
       |  public void writeDefault(int row, InternalRow out) {
       |    ${default.code}
       |    ${g.writeResult(request.ordinal, request.resultType, default)}
       |  }
       |}
     """.stripMargin
  }
}
