package fastwindow.exec.window

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate.{Count, Sum}
import org.apache.spark.sql.fastwindow.TestTaskMemory
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.WindowTestKit._
import fastwindow.exec.shared.ColumnMemory
import fastwindow.model.StreamBounds

/**
 * The four parts of [[WindowPartitionIterator]] on their own: [[PartitionReader]] (window
 * partitions out of the sorted input), [[EmitPolicy]] (when rows may be returned and dropped),
 * [[MemoryGovernor]] with [[fastwindow.exec.shared.ColumnMemory]] (what stays in memory, against
 * a real `TaskMemoryManager`) and [[OutputAssembler]] (the output row, on its direct and
 * projected paths). The iterator that combines them is covered end to end by the Python suite.
 */
class TaskLoopPartsSuite extends AnyFunSuite {

  private val key = attr("key", IntegerType)
  private val name = attr("name", StringType)
  private val v = attr("v", LongType)
  private val schema = Seq(key, name, v)

  private def row(k: Integer, s: String, x: Long): InternalRow =
    new GenericInternalRow(Array[Any](k, if (s == null) null else UTF8String.fromString(s), x))

  // ---------------------------------------------------------------------------------------------
  // PartitionReader

  private def reader(rows: Seq[InternalRow], partitionBy: Seq[Expression] = Seq(key)) =
    new PartitionReader(rows.iterator, UnsafeProjection.create(schema, schema),
      PartitionKey(partitionBy, schema))

  /** Every partition's `v` values, read by the reader's protocol. */
  private def partitions(r: PartitionReader): Seq[Seq[Long]] = {
    val out = Seq.newBuilder[Seq[Long]]
    while (r.hasRow) {
      r.startPartition()
      out += Iterator.continually(r.nextInPartition()).takeWhile(_ != null).map(_.getLong(2)).toList // strict: the reader moves on (2.12's toSeq is a lazy Stream)
    }
    out.result()
  }

  test("PartitionReader splits sorted rows where the PARTITION BY key changes, nulls included") {
    val rows = Seq(row(null, "a", 0), row(null, "b", 1), row(1, "c", 2), row(2, "d", 3),
      row(2, "e", 4), row(2, null, 5), row(7, "f", 6))
    assert(partitions(reader(rows)) == Seq(Seq(0L, 1L), Seq(2L), Seq(3L, 4L, 5L), Seq(6L)))
    assert(partitions(reader(rows, Seq(name))) == rows.indices.map(i => Seq(i.toLong)))
    assert(partitions(reader(rows, Nil)) == Seq(rows.indices.map(_.toLong)))
  }

  test("PartitionReader: an empty input has no rows, a partition's end is not the input's") {
    assert(!reader(Nil).hasRow)
    val r = reader(Seq(row(1, "a", 0), row(2, "b", 1)))
    r.startPartition()
    assert(r.nextInPartition().getLong(2) == 0L)
    assert(r.nextInPartition() == null)
    assert(r.nextInPartition() == null, "the end of a partition stays its end")
    assert(r.hasRow)
    r.startPartition()
    assert(r.nextInPartition().getLong(2) == 1L)
    assert(r.nextInPartition() == null && !r.hasRow)
  }

  test("PartitionReader.restOfPartition yields the unread rows of the current partition only") {
    val r = reader(Seq(row(1, "a", 0), row(1, "b", 1), row(1, "c", 2), row(3, "d", 3)))
    r.startPartition()
    assert(r.nextInPartition().getLong(2) == 0L)
    val rest = r.restOfPartition
    assert(rest.hasNext && rest.hasNext, "hasNext does not consume")
    assert(rest.map(_.getLong(2)).toList == List(1L, 2L))
    assert(partitions(r) == Seq(Seq(3L)))
  }

  test("PartitionReader passes UnsafeRows through and projects other rows") {
    val project = UnsafeProjection.create(schema.map(_.dataType).toArray)
    val unsafe = project(row(1, "a", 5)).copy()
    val r =
      new PartitionReader(Iterator(unsafe, row(1, "b", 6)), UnsafeProjection.create(schema, schema),
        PartitionKey(Seq(key), schema))
    r.startPartition()
    assert(r.nextInPartition() eq unsafe)
    val second = r.nextInPartition()
    assert(second.getUTF8String(1).toString == "b" && second.getLong(2) == 6L)
  }

  // ---------------------------------------------------------------------------------------------
  // EmitPolicy

  private def peersAt(start: Int): PeerProgress = new PeerProgress {
    override def lastPeerGroupStart: Int = start
  }

  test("EmitPolicy without bounds returns nothing before the partition is complete") {
    val p = new EmitPolicy(None, dropsRowsOnIngest = false)
    assert(!p.streams)
    assert(p.ready(100, peersAt(50), complete = false) == 0)
    assert(p.ready(100, peersAt(50), complete = true) == 100)
  }

  test("EmitPolicy with look-ahead and history: which rows are ready, which are kept") {
    val p = new EmitPolicy(Some(StreamBounds(lookahead = 2, history = 3, waitsForPeers = false)),
      dropsRowsOnIngest = false)
    assert(p.streams)
    assert(p.ready(1, peersAt(0), complete = false) <= 0, "row 0 waits for two more rows")
    assert(p.ready(10, peersAt(0), complete = false) == 8)
    assert(p.ready(10, peersAt(0), complete = true) == 10)
    assert(p.keepFrom(emitted = 8, rows = 10) == 5)
    assert(p.keepFrom(emitted = 2, rows = 10) == -1, "nothing before the partition start")
    val noHistory = new EmitPolicy(Some(StreamBounds.Immediate), dropsRowsOnIngest = false)
    assert(noHistory.keepFrom(emitted = 10, rows = 10) == 9, "the last row stays (peer checks)")
  }

  test("EmitPolicy waiting for peers: a row is ready once its peer group is closed") {
    val p = new EmitPolicy(Some(StreamBounds.Immediate.copy(waitsForPeers = true)),
      dropsRowsOnIngest = false)
    // 10 rows ingested; the last group (maybe still growing) starts at row 6.
    assert(p.ready(10, peersAt(6), complete = false) == 6)
    assert(p.ready(10, peersAt(6), complete = true) == 10)
    val withLookahead = new EmitPolicy(Some(StreamBounds(3, 0, waitsForPeers = true)), false)
    assert(withLookahead.ready(10, peersAt(9), complete = false) == 7)
  }

  test("EmitPolicy of a plan: streams only when asked and when every function can") {
    val order = Seq(asc(v))
    val lag = Lag(v, Literal(1), Literal(null), ignoreNulls = false)
    val streamable = planOf(Seq(win(RowNumber(), order), win(lag, order)), order)
    assert(EmitPolicy(streamable, streaming = true).streams)
    assert(!EmitPolicy(streamable, streaming = false).streams)
    val whole = planOf(Seq(win(agg(Sum(v)), order, wholeRows), win(RowNumber(), order)), order)
    assert(!EmitPolicy(whole, streaming = true).streams)
    assert(EmitPolicy(whole, streaming = true).dropsRowsOnIngest,
      "whole-partition sums and row_number read no buffered row")
    val withRank = planOf(Seq(win(Rank(order.map(_.child)), order)), order)
    assert(!EmitPolicy(withRank, streaming = true).dropsRowsOnIngest, "rank compares peers")
  }

  // ---------------------------------------------------------------------------------------------
  // MemoryGovernor and ColumnMemory

  test("MemoryGovernor: spark.fastwindow.memory.maxPartitionBytes decides without a task") {
    val g = new MemoryGovernor(None, maxPartitionBytes = 1000)
    assert(!g.mustHandOver(held = 400, toCome = 500, canHandOver = true, rows = 10))
    assert(g.mustHandOver(held = 400, toCome = 700, canHandOver = true, rows = 20))
    assert(g.peak == 400)
    assert(!g.mustHandOver(held = 1500, toCome = 0, canHandOver = false, rows = 30),
      "a partition that already returned rows keeps its buffers")
    assert(g.peak == 1500)
    assert(!new MemoryGovernor(None, maxPartitionBytes = 0).mustHandOver(1L << 40, 0, true, 1),
      "0 means no limit")
  }

  test("ColumnMemory reserves from the task's memory manager and returns all of it") {
    TestTaskMemory.withTask(executionBytes = 10000) { task =>
      val columns = new ColumnMemory(task.manager)
      assert(columns.reserve(4000))
      assert(task.used == 4000)
      assert(columns.reserve(3000), "already reserved")
      assert(task.used == 4000)
      assert(!columns.reserve(20000), "more than the task may have")
      columns.release()
      assert(task.used == 0)
      columns.release()
      assert(task.used == 0, "release is idempotent")
    }
  }

  test("MemoryGovernor hands a partition over when the memory manager refuses, then recovers") {
    TestTaskMemory.withTask(executionBytes = 10000) { task =>
      val g = new MemoryGovernor(Some(new ColumnMemory(task.manager)), maxPartitionBytes = 0)
      assert(!g.mustHandOver(held = 3000, toCome = 3000, canHandOver = true, rows = 10))
      assert(g.mustHandOver(held = 8000, toCome = 8000, canHandOver = true, rows = 20))
      g.release()
      assert(task.used == 0)
      g.startPartition()
      assert(!g.mustHandOver(held = 2000, toCome = 0, canHandOver = true, rows = 5),
        "the next partition gets memory again")
      assert(!g.mustHandOver(held = 50000, toCome = 0, canHandOver = false, rows = 50),
        "once rows were returned the buffers stay, unaccounted")
      assert(!g.mustHandOver(held = 60000, toCome = 0, canHandOver = false, rows = 60),
        "and the memory manager is not asked again for this partition")
      g.release()
      assert(task.used == 0)
    }
  }

  // ---------------------------------------------------------------------------------------------
  // OutputAssembler

  private val childTypes = schema.map(_.dataType)
  private val order = Seq(asc(v))
  private val countAndSum = planOf(
    Seq(win(agg(Count(Seq(v))), order, runningRows), win(agg(Sum(v)), order, runningRows)), order)

  /** Joins one child row with results (count, sum) written by `write`. */
  private def assemble(
      assembler: OutputAssembler,
      child: InternalRow,
      write: InternalRow => Unit): Seq[Any] = {
    write(assembler.results)
    assembler.resultsWritten()
    val unsafeChild = UnsafeProjection.create(childTypes.toArray)(child)
    val out = assembler.join(unsafeChild)
    val types = childTypes ++ countAndSum.outputs.map(_.dataType)
    types.indices.map(k => if (out.isNullAt(k)) null else copyValue(out.get(k, types(k))))
  }

  test("OutputAssembler joins the child row with the function results, on every path") {
    val child = row(3, "hello", 42)
    val expected = Seq(3, UTF8String.fromString("hello"), 42L, 7L, null)
    for ((generated, interpreted) <- Seq((true, false), (false, false), (false, true))) {
      val a = new OutputAssembler(countAndSum, childTypes, generated, interpreted)
      assert(a.results.isInstanceOf[UnsafeRow] == generated,
        "fixed-width results of a generated evaluator are written straight into the output row")
      val got = assemble(a, child,
        { out =>
          out.setLong(0, 7L)
          out.setNullAt(1)
        })
      assert(got == expected, s"generated=$generated interpreted=$interpreted")
      assert(!a.resultsPerPartition)
    }
  }

  test("OutputAssembler projects outputs that are expressions over the results") {
    // DecimalAggregates-style outputs: a cast around a function's result.
    val exprs = aliased(Seq(win(agg(Sum(v)), order, wholeRows)))
    val withCast = exprs.map(e => Alias(Cast(e.asInstanceOf[Alias].child, StringType), e.name)())
    val plan = fastwindow.functions.WindowSupport.check(withCast, order).toOption.get
    assert(!plan.resultsAreOutputs && plan.resultsPerPartition)
    val a = new OutputAssembler(plan, childTypes, generatedEvaluator = true, interpreted = false)
    a.results.setLong(0, 12L)
    a.resultsWritten()
    val out = a.join(UnsafeProjection.create(childTypes.toArray)(row(1, null, 2)))
    assert(out.isNullAt(1) && out.getLong(2) == 2L && out.getUTF8String(3).toString == "12")
    assert(a.resultsPerPartition)
  }
}
