package fastwindow.codegen

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.codegen.{ExprCode, JavaCode}

import fastwindow.ops.{AggregateOps, AggregateRequest}

/**
 * Generates an [[AggregateOps]] for one aggregate: slots are one primitive array (and one array
 * of null flags) per buffer field, indexed by slot; the aggregate's initial, update, merge and
 * evaluate expressions are inlined on them and on the columns. The loops of `updateRange` and
 * `foldSuffix` are generated too, so the calls in them stay inside the class.
 */
object AggregateCodegen {

  /** The source of an inner class `name` extending [[AggregateOps]]. */
  def innerClass(name: String, request: AggregateRequest, g: GenContext): String = {
    val bound = request.aggregate
    val fields = bound.bufferTypes.zipWithIndex.map { case (t, k) => (s"v$k", s"n$k", t) }

    def slot(s: String): Seq[ExprCode] = fields.map { case (v, n, t) =>
      ExprCode(JavaCode.isNullExpression(s"$n[$s]"), JavaCode.expression(s"$v[$s]", t))
    }
    def assign(exprs: Seq[Expression], inputs: Seq[ExprCode], s: String): String = {
      val (code, locals) = g.evaluateToLocals(exprs, inputs)
      code + fields.zip(locals).map { case ((v, n, _), l) =>
        s"$n[$s] = ${l.isNull};\n$v[$s] = ${l.value};"
      }.mkString("\n")
    }
    def eachArray(f: (String, String) => String): String = fields.flatMap { case (v, n, t) =>
      Seq(f(v, g.javaType(t)), f(n, "boolean"))
    }.mkString("\n")

    val opsClass = classOf[AggregateOps].getName
    val resultType = bound.evaluate.dataType
    val result = g.evaluate(bound.evaluate, slot("s"))
    val merge =
      if (bound.merge.isEmpty) {
        """throw new UnsupportedOperationException("this window aggregate has no merge");"""
      } else assign(bound.merge, slot("left") ++ slot("right"), "s")
    val needsExact = request.needsExact match {
      case None => "return false;"
      case Some(guard) =>
        val check = g.evaluate(guard, slot("s"))
        s"${check.code}\nreturn !${check.isNull} && ${check.value};"
    }
    s"""
       |final class $name extends $opsClass {
       |  ${eachArray((a, t) => s"private $t[] $a = ${g.newArray(t, s"$opsClass.InitialSlots()")};")}
       |  private int capacity = $opsClass.InitialSlots();
       |  private boolean resultIsNull = true;
       |  private ${g.javaType(resultType)} resultValue;
       |
       |  $name() { super(${request.slotBytes}L); }
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
       |  public void init(int s) {
       |    ${assign(bound.initial, Nil, "s")}
       |  }
       |
       |  public void update(int s, int row) {
       |    ${assign(bound.update, slot("s") ++ g.columnVars("row"), "s")}
       |  }
       |
       |  public void updateRange(int s, int from, int until) {
       |    for (int j = from; j < until; j++) update(s, j);
       |  }
       |
       |  public void merge(int s, int left, int right) {
       |    $merge
       |  }
       |
       |  public void foldSuffix(int base, int from, int until) {
       |    for (int j = until - 1; j >= from; j--) {
       |      init(base + j);
       |      update(base + j, j);
       |      if (j < until - 1) merge(base + j, base + j, base + j + 1);
       |    }
       |  }
       |
       |  public void moveSlots(int from, int to, int count) {
       |    ${eachArray((a, _) => s"System.arraycopy($a, from, $a, to, count);")}
       |  }
       |
       |  public void evaluate(int s) {
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
       |  public boolean needsExact(int s) {
       |    $needsExact
       |  }
       |}
     """.stripMargin
  }
}
