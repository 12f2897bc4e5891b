package fastwindow.kernels

import org.apache.spark.sql.catalyst.expressions.{AttributeReference, BindReferences, NthValue}

import fastwindow.kernels.AggregateKernel.Gen

/**
 * nth_value over sliding ROWS and RANGE frames, in O(1) amortized per row.
 *
 * Spark has no merge for nth_value, so the two stacks of [[SlidingAggregate]] cannot run it; but
 * its answer is a position: the frame's `offset`-th row (null past the frame's end), or with
 * IGNORE NULLS its `offset`-th row with a non-null input. The latter comes from a queue of the
 * non-null rows seen up to the frame's end, whose head moves past the rows before the frame's
 * start; both ends only move forward, as the frame's edges do. The partition is buffered (the
 * planner streams no nth_value over a sliding frame), so positions never shift.
 */
object SlidingNthValue {

  private def offsetOf(nth: NthValue): Long = nth.offset.eval().asInstanceOf[Int].toLong

  private val neverStreamed = "nth_value over a sliding frame is never streamed"

  final class Interpreted(frame: FrameLocator, nth: NthValue, input: Int => Any) extends SlidingFrame {
    private val offset = offsetOf(nth)
    private var nonNull = new Array[Int](16)
    private var size = 0
    private var head = 0
    private var scanned = 0

    def reset(): Unit = {
      frame.reset()
      size = 0
      head = 0
      scanned = 0
    }

    def shift(d: Int): Unit = throw new IllegalStateException(neverStreamed)
    def stateBytes: Long = 4L * nonNull.length
    def stateBytesPerRow: Long = 4L

    def resultAt(i: Int, n: Int): Any = {
      frame.locate(i, n)
      val (a, b) = (frame.first, frame.last)
      if (!nth.ignoreNulls) {
        val p = a + offset - 1
        if (a <= b && p <= b) input(p.toInt) else null
      } else {
        while (scanned <= b) {
          if (input(scanned) != null) {
            if (size == nonNull.length) nonNull = java.util.Arrays.copyOf(nonNull, size * 2)
            nonNull(size) = scanned
            size += 1
          }
          scanned += 1
        }
        while (head < size && nonNull(head) < a) head += 1
        val k = head + offset - 1
        if (k < size) input(nonNull(k.toInt)) else null
      }
    }
  }

  /** The generated twin; writes the result into `gen`'s result fields. */
  def generate(
      frame: FrameLocatorCode,
      nth: NthValue,
      columnAttributes: Seq[AttributeReference],
      gen: Gen): KernelCode = {
    val g = gen.g
    val offset = offsetOf(nth)
    val value = BindReferences.bindReference(nth.input, columnAttributes)
    val valueAt = g.method("nthValueAt", "int p", gen.evaluate(value, g.columnVars("p")))
    val setNull = s"${gen.resultIsNull} = true;"
    val shift = s"""throw new IllegalStateException("$neverStreamed");"""
    if (!nth.ignoreNulls) {
      KernelCode("", s"""
        |${frame.locate}
        |final long p = (long) frameFirstOfRow + ${offset}L - 1L;
        |if (frameFirstOfRow <= frameLastOfRow && p <= frameLastOfRow) $valueAt((int) p);
        |else $setNull
      """.stripMargin, frame.start, shift)
    } else {
      val nonNull = g.field("int[]", "nonNullRows", "new int[16]")
      val size = g.intField("nonNullCount")
      val head = g.intField("nonNullHead")
      val scanned = g.intField("nonNullScanned")
      val isNullAt = g.withInputs(g.columnVars("r"))(value.genCode(g.ctx))
      val scan = g.method("scanNonNull", "int r", s"""
        |${isNullAt.code}
        |if (!${isNullAt.isNull}) {
        |  if ($size == $nonNull.length) $nonNull = java.util.Arrays.copyOf($nonNull, $size * 2);
        |  $nonNull[$size++] = r;
        |}
      """.stripMargin)
      KernelCode("", s"""
        |${frame.locate}
        |while ($scanned <= frameLastOfRow) { $scan($scanned); $scanned++; }
        |while ($head < $size && $nonNull[$head] < frameFirstOfRow) $head++;
        |final long k = (long) $head + ${offset}L - 1L;
        |if (k < $size) $valueAt($nonNull[(int) k]);
        |else $setNull
      """.stripMargin,
        s"${frame.start}\n$size = 0;\n$head = 0;\n$scanned = 0;", shift,
        stateBytes = s"4L * $nonNull.length", stateBytesPerRow = 4L)
    }
  }
}
