package fastwindow.codegen

import org.apache.spark.sql.catalyst.expressions.codegen.{CodeAndComment, CodeFormatter, CodeGenerator, CodegenContext}

import fastwindow.buffer.{Column, ColumnType}
import fastwindow.exec.{EvaluatorLayout, WindowEvaluator}
import fastwindow.kernels.{AggregateKernel, KernelCode, OffsetKernel, RankingKernel}
import fastwindow.planning.{AggregateSpec, OffsetSpec, RankingSpec}

/**
 * Generates one Java class per operator that evaluates all of its window functions: input
 * expressions are inlined into `ingest` and write straight into primitive arrays; each function
 * contributes its kernel's code (constants such as ntile buckets and lead/lag offsets are literals,
 * aggregates' update/evaluate expressions are inlined on primitive fields); `write` calls them in
 * output order.
 *
 * The source is generated on the driver and shipped with the plan ([[GeneratedSource]]);
 * executors compile it with Spark's `CodeGenerator.compile`, which caches classes by source, so
 * each distinct operator is compiled once per JVM.
 */
object EvaluatorCodegen {

  /** Source and reference objects of a generated evaluator (serializable, built on the driver). */
  final case class GeneratedSource(code: CodeAndComment, references: Array[Any]) {
    /** Compiles (or fetches from Spark's cache) and instantiates the evaluator. */
    def instantiate(): WindowEvaluator = {
      val (clazz, _) = CodeGenerator.compile(code)
      clazz.generate(references).asInstanceOf[WindowEvaluator]
    }
  }

  def generate(layout: EvaluatorLayout): GeneratedSource = {
    val ctx = new CodegenContext
    val g = new GenContext(ctx, layout)
    val columns = layout.columns
    val needsPeers = layout.plan.needsPeers

    val columnFields = columns.map { c =>
      s"private ${ColumnType.javaType(c.dataType)}[] ${g.valuesArray(c)};\n" +
        s"private boolean[] ${g.nullsArray(c)};"
    }.mkString("\n")

    val growColumns = columns.map { c =>
      val values = g.valuesArray(c)
      val nulls = g.nullsArray(c)
      val javaType = ColumnType.javaType(c.dataType)
      s"""
         |$values = ($values == null) ? ${newArray(javaType, "newCapacity")}
         |  : ($javaType[]) java.util.Arrays.copyOf($values, newCapacity);
         |$nulls = ($nulls == null) ? new boolean[newCapacity]
         |  : java.util.Arrays.copyOf($nulls, newCapacity);
       """.stripMargin
    }.mkString

    ctx.INPUT_ROW = "row"
    ctx.currentVars = null
    val extracted = ctx.generateExpressions(columns.map(_.bound))
    val extract = columns.zip(extracted).map { case (c, ev) =>
      val store = ColumnType.ownedCopyCode(c.dataType, ev.value.toString)
      g.method("extract", "InternalRow row, int r",
        s"""
           |${ev.code}
           |${g.nullsArray(c)}[r] = ${ev.isNull};
           |if (!${ev.isNull}) ${g.valuesArray(c)}[r] = $store;
         """.stripMargin) + "(row, r);"
    }.mkString("\n")

    val samePeerKeys = layout.peerKeyColumns.map { c =>
      val a = g.value(c, "a")
      val b = g.value(c, "b")
      s"""
         |if (${g.isNull(c, "a")} != ${g.isNull(c, "b")}) return false;
         |if (!${g.isNull(c, "a")} && !(${ctx.genEqual(c.dataType, a, b)})) return false;
       """.stripMargin
    }.mkString

    val kernels: Seq[KernelCode] = layout.plan.functions.map {
      case r: RankingSpec => RankingKernel.generate(r, g)
      case o: OffsetSpec =>
        val (input, default) = layout.offsetColumns(o)
        OffsetKernel.generate(o, input, default, g)
      case a: AggregateSpec =>
        AggregateKernel.generate(
          a, layout.columnarAggregate(a), layout.columnAttributes, layout.rangeKeyColumn(a), g)
    }
    def calls(code: KernelCode => String, prefix: String, params: String, args: String) =
      kernels.map(code).filter(_.trim.nonEmpty).map { body =>
        g.method(prefix, params, body) + s"($args);"
      }.mkString("\n")
    val startCalls = calls(_.start, "start", "", "")
    val ingestedCalls = calls(_.ingested, "ingested", "final int r", "r")
    val finishCalls = calls(_.finishPartition, "finish", "final int n", "n")
    val shiftCalls = calls(_.shift, "shift", "final int d", "d")
    val shiftColumns = columns.map { c =>
      s"System.arraycopy(${g.valuesArray(c)}, d, ${g.valuesArray(c)}, 0, kept);\n" +
        s"System.arraycopy(${g.nullsArray(c)}, d, ${g.nullsArray(c)}, 0, kept);"
    }.mkString("\n")
    val stateBytes = kernels.map(_.stateBytes).filter(_.nonEmpty).map(b => s" + $b").mkString
    val writeCalls = kernels.map { k =>
      g.method("write", "final int i, final int n, InternalRow out", k.write) + "(i, n, out);"
    }.mkString("\n")

    val evaluatorClass = classOf[WindowEvaluator].getName
    val body =
      s"""
         |public java.lang.Object generate(Object[] references) {
         |  return new SpecificWindowEvaluator(references);
         |}
         |
         |final class SpecificWindowEvaluator extends $evaluatorClass {
         |  private Object[] references;
         |  // Buffered row r is the partition's row base + r (rows before base were discarded).
         |  private int ${g.base} = 0;
         |  private int rows = 0;
         |  private int capacity = 0;
         |  private boolean[] peerBreak = new boolean[0];
         |  private int lastPeerStart = 0;
         |  private int ${g.peerStart} = 0;
         |  private int ${g.peerEnd} = 0;
         |  private int ${g.peerIndex} = 0;
         |  $columnFields
         |  ${ctx.declareMutableStates()}
         |
         |  public SpecificWindowEvaluator(Object[] references) {
         |    this.references = references;
         |    ${ctx.initMutableStates()}
         |    growColumns(${Column.InitialCapacity});
         |  }
         |
         |  public int numRows() { return ${g.base} + rows; }
         |  public int firstBufferedRow() { return ${g.base}; }
         |  public int lastPeerGroupStart() { return ${g.base} + lastPeerStart; }
         |  public long bufferBytes() { return ${layout.bytesPerRow}L * capacity$stateBytes; }
         |  public long stateBytesPerRow() { return ${kernels.map(_.stateBytesPerRow).sum}L; }
         |
         |  public void startPartition() {
         |    rows = 0;
         |    ${g.base} = 0;
         |    lastPeerStart = 0;
         |    ${g.peerStart} = 0;
         |    ${g.peerEnd} = 0;
         |    ${g.peerIndex} = 0;
         |    $startCalls
         |  }
         |
         |  public void ingest(InternalRow row) {
         |    final int r = rows;
         |    if (r == capacity) growColumns(r + 1);
         |    $extract
         |    ${if (needsPeers) recordPeerBreak else ""}
         |    rows = r + 1;
         |    $ingestedCalls
         |  }
         |
         |  private boolean samePeerKeys(int a, int b) {
         |    $samePeerKeys
         |    return true;
         |  }
         |
         |  public void finishPartition() {
         |    final int n = ${g.base} + rows;  // the partition's size, also after rows were dropped
         |    $finishCalls
         |  }
         |
         |  public void write(final int row, InternalRow out) {
         |    final int i = row - ${g.base};
         |    final int n = rows;
         |    ${if (needsPeers) advancePeers(g) else ""}
         |    $writeCalls
         |  }
         |
         |  public void discardBefore(final int row) {
         |    final int d = row - ${g.base};
         |    if (d <= 0) return;
         |    final int kept = rows - d;
         |    $shiftColumns
         |    ${if (needsPeers) "System.arraycopy(peerBreak, d, peerBreak, 0, kept);" else ""}
         |    $shiftCalls
         |    lastPeerStart -= d;
         |    ${g.peerStart} -= d;
         |    ${g.peerEnd} -= d;
         |    ${g.base} += d;
         |    rows = kept;
         |  }
         |
         |  private void growColumns(int minCapacity) {
         |    final int newCapacity = ${classOf[Column].getName}.grownCapacity(capacity, minCapacity);
         |    $growColumns
         |    ${if (needsPeers) "peerBreak = java.util.Arrays.copyOf(peerBreak, newCapacity);" else ""}
         |    capacity = newCapacity;
         |  }
         |
         |  ${ctx.declareAddedFunctions()}
         |}
       """.stripMargin

    val code = CodeFormatter.stripOverlappingComments(
      new CodeAndComment(CodeFormatter.stripExtraNewLines(body), ctx.getPlaceHolderToComments()))
    GeneratedSource(code, ctx.references.toArray)
  }

  /** `new T[size]`, also when T is itself an array type such as `byte[]`. */
  private def newArray(javaType: String, size: String): String =
    if (javaType.endsWith("[]")) s"new ${javaType.dropRight(2)}[$size][]" else s"new $javaType[$size]"

  /** Same as [[fastwindow.kernels.PartitionCursor]]'s ingest step. */
  private val recordPeerBreak =
    s"""
       |final boolean peerBreakAtR = base + r == 0 || !samePeerKeys(r, r - 1);
       |peerBreak[r] = peerBreakAtR;
       |if (peerBreakAtR) lastPeerStart = r;
     """.stripMargin

  /** Same walk as [[fastwindow.kernels.PartitionCursor.advance]]. */
  private def advancePeers(g: GenContext): String =
    s"""
       |if (peerBreak[i]) {
       |  ${g.peerStart} = i;
       |  int e = i + 1;
       |  while (e < n && !peerBreak[e]) e++;
       |  ${g.peerEnd} = e;
       |  ${g.peerIndex}++;
       |}
     """.stripMargin
}
