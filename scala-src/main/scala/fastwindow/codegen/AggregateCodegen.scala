package fastwindow.codegen

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.codegen.{CodeGenerator, ExprCode, JavaCode}
import org.apache.spark.sql.types.DataType

import fastwindow.ops.{AggregateOps, AggregateRequest}

/**
 * Generates an [[AggregateOps]] for one aggregate: the accumulator is one field (and one null
 * flag) per buffer field, the slots one primitive array (and one array of null flags) per buffer
 * field; the aggregate's initial, update, merge and evaluate expressions are inlined on them and
 * on the columns. Merges that are only written (`writeMerged`) and the suffix fold keep their
 * intermediate buffers in locals. The loops of `addRange` and `foldSuffix` are generated too, so
 * the calls in them stay inside the class.
 */
object AggregateCodegen {

  /** One buffer field: its accumulator field, slot array and null flags, and its type. */
  private final case class Field(k: Int, dataType: DataType) {
    def acc: String = s"acc$k"
    def accNull: String = s"accNull$k"
    def values: String = s"v$k"
    def nulls: String = s"n$k"
  }

  /** The source of an inner class `name` extending [[AggregateOps]]. */
  def innerClass(name: String, request: AggregateRequest, g: GenContext): String = {
    val bound = request.aggregate
    val fields = bound.bufferTypes.zipWithIndex.map { case (t, k) => Field(k, t) }

    def buffer(isNull: Field => String, value: Field => String): Seq[ExprCode] = fields.map { f =>
      ExprCode(JavaCode.isNullExpression(isNull(f)), JavaCode.expression(value(f), f.dataType))
    }
    val acc = buffer(_.accNull, _.acc)
    def slot(s: String): Seq[ExprCode] = buffer(f => s"${f.nulls}[$s]", f => s"${f.values}[$s]")

    /** Evaluates `exprs` (all before any store) and stores them with `store(field, local)`. */
    def assign(exprs: Seq[Expression], inputs: Seq[ExprCode])(store: (
            Field, ExprCode) => String): String = {
      val (code, locals) = g.evaluateToLocals(exprs, inputs)
      code + fields.zip(locals).map { case (f, l) => store(f, l) }.mkString("\n")
    }
    def toAcc(f: Field, l: ExprCode) = s"${f.accNull} = ${l.isNull};\n${f.acc} = ${l.value};"
    def toSlot(s: String)(f: Field, l: ExprCode) =
      s"${f.nulls}[$s] = ${l.isNull};\n${f.values}[$s] = ${l.value};"
    def eachArray(f: (String, String) => String): String = fields.flatMap { field =>
      Seq(f(field.values, g.javaType(field.dataType)), f(field.nulls, "boolean"))
    }.mkString("\n")

    val opsClass = classOf[AggregateOps].getName
    val resultType = bound.evaluate.dataType
    val noMerge =
      """throw new UnsupportedOperationException("this window aggregate has no merge");"""

    /** Unless the guard fires on `buf`: evaluates it, writes the result, returns true. */
    def writeFrom(buf: Seq[ExprCode]): String = {
      val guard = request.needsExact.map { expr =>
        val check = g.evaluate(expr, buf)
        s"${check.code}\nif (!${check.isNull} && ${check.value}) return false;"
      }
      val value = g.evaluate(bound.evaluate, buf)
      s"""
         |${guard.getOrElse("")}
         |${value.code}
         |${g.writeResult(request.ordinal, resultType, value)}
         |return true;
       """.stripMargin
    }
    val (initCode, initial) = g.evaluateToLocals(bound.initial, Nil)
    val writeEmpty = {
      val value = g.evaluate(bound.evaluate, initial)
      s"$initCode\n${value.code}\n${g.writeResult(request.ordinal, resultType, value)}"
    }
    val writeMerged = if (bound.merge.isEmpty) noMerge
    else {
      val (code, merged) = g.evaluateToLocals(bound.merge, slot("s") ++ acc)
      code + writeFrom(merged)
    }
    // Row j's own buffer (initial, updated with row j) merged with slot j + 1 (rows after it).
    val foldSuffix = if (bound.merge.isEmpty) noMerge
    else {
      val (ownCode, own) = g.evaluateToLocals(bound.update, initial ++ g.columnVars("j"))
      val later = assign(bound.merge, own ++ slot("j + 1"))(toSlot("j"))
      s"""
         |for (int j = until - 1; j >= from; j--) {
         |  $initCode
         |  $ownCode
         |  if (j == until - 1) {
         |    ${fields.zip(own).map { case (f, l) => toSlot("j")(f, l) }.mkString("\n")}
         |  } else {
         |    $later
         |  }
         |}
       """.stripMargin
    }
    val result = g.evaluate(bound.evaluate, acc)

    s"""
       |final class $name extends $opsClass {
       |  ${fields.map(f =>
        s"private ${g.javaType(f.dataType)} ${f.acc};\nprivate boolean ${f.accNull};").mkString(
        "\n")}
       |  ${eachArray((a, t) =>
        s"private $t[] $a = ${g.newArray(t, s"$opsClass.InitialSlots()")};")}
       |  private int capacity = $opsClass.InitialSlots();
       |  private boolean resultIsNull = true;
       |  private ${g.javaType(resultType)} resultValue;
       |
       |  $name() { super(${request.slotBytes}L); }
       |
       |  public void reset() {
       |    ${assign(bound.initial, Nil)(toAcc)}
       |  }
       |
       |  public void seed(InternalRow b) {
       |    ${fields.map(f =>
        s"${f.accNull} = b.isNullAt(${f.k});\nif (!${f.accNull}) " +
          s"${f.acc} = ${CodeGenerator.getValue("b", f.dataType, f.k.toString)};").mkString("\n")}
       |  }
       |
       |  public void add(int row) {
       |    ${assign(bound.update, acc ++ g.columnVars("row"))(toAcc)}
       |  }
       |
       |  public void addRange(int from, int until) {
       |    for (int j = from; j < until; j++) add(j);
       |  }
       |
       |  public void evaluate() {
       |    ${result.code}
       |    resultIsNull = ${result.isNull};
       |    resultValue = ${result.value};
       |  }
       |
       |  public void writeResult(InternalRow out) {
       |    ${g.writeResult(request.ordinal, resultType,
        ExprCode(JavaCode.isNullVariable("resultIsNull"),
          JavaCode.variable("resultValue", resultType)))}
       |  }
       |
       |  public boolean write(InternalRow out) {
       |    ${writeFrom(acc)}
       |  }
       |
       |  public void writeEmpty(InternalRow out) {
       |    $writeEmpty
       |  }
       |
       |  public int slots() { return capacity; }
       |
       |  public void growSlots(int minSlots) {
       |    if (minSlots <= capacity) return;
       |    final int size = $opsClass.grownSlots(capacity, minSlots);
       |    ${eachArray((a, t) => s"$a = ($t[]) java.util.Arrays.copyOf($a, size);")}
       |    capacity = size;
       |  }
       |
       |  public void foldSuffix(int from, int until) {
       |    $foldSuffix
       |  }
       |
       |  public void moveSlots(int from, int to, int count) {
       |    ${eachArray((a, _) => s"System.arraycopy($a, from, $a, to, count);")}
       |  }
       |
       |  public boolean writeMerged(int s, InternalRow out) {
       |    $writeMerged
       |  }
       |}
     """.stripMargin
  }
}
