package fastwindow.exec.window

import org.apache.spark.sql.catalyst.InternalRow

import fastwindow.columns.{Column, ColumnLayout}
import fastwindow.frames.PeerGroups
import fastwindow.functions.WindowSupport
import fastwindow.kernels.Kernel
import fastwindow.model.{FunctionSpec, WindowPlan}
import fastwindow.ops.{FunctionOps, OpsSet}

/**
 * The [[WindowEvaluator]]: the partition's function inputs in `columns`, its peer groups, and one
 * kernel per function (built by the functions' families, `fastwindow.functions`).
 *
 * There is one implementation; whether it is "generated" or "interpreted" is only a matter of its
 * `ops` (`fastwindow.codegen` or `fastwindow.ops.InterpretedOps`). Instances are reused for every
 * partition of a task, so buffers are allocated once and only grow. In an operator's copy of the
 * algorithm classes ([[AlgorithmIsolation]]), `functionLoader(k)` is function k's own copy (null:
 * the operator's) and `families(k)` the class of its family object; outside copies both are unused
 * (`families` null).
 */
final class KernelEvaluator(
    plan: WindowPlan,
    layout: ColumnLayout,
    columns: Array[Column],
    ops: OpsSet,
    val generated: Boolean,
    functionLoader: Int => ClassLoader,
    families: Array[String])
  extends WindowEvaluator {

  private val peers = new PeerGroups(plan.needsPeers)
  private val kernels = Array.tabulate(plan.functions.length)(kernelOf)

  /** The kernels that read each row as it is ingested (whole-partition aggregates). */
  private val ingesting = kernels.filter(_.readsOnIngest)

  /**
   * Function k's kernel. In a copy of the algorithm classes ([[AlgorithmIsolation]]), built by its
   * family as the function's own copy sees it (`functionLoader(k)`, null: this copy), loaded by
   * name: going through [[WindowSupport]] there would load every family and the planning facts
   * they hold into each copy (some hundred classes per function, and most of a small query's time).
   */
  private def kernelOf(k: Int): Kernel =
    if (families == null) WindowSupport.kernel(plan, k, ops, peers)
    else {
      val loader = Option(functionLoader(k)).getOrElse(getClass.getClassLoader)
      val family = loader.loadClass(families(k)).getField("MODULE$").get(null)
      family.getClass
        .getMethod("kernelOf", classOf[FunctionSpec], classOf[FunctionOps], classOf[PeerGroups])
        .invoke(family, plan.functions(k), ops.functions(k), peers).asInstanceOf[Kernel]
    }
  private val extractor = if (layout.columns.isEmpty) None else Some(ops.extractor)
  private val peerKeys = ops.peerKeys
  private val tracksPeers = plan.needsPeers
  private var capacity = Column.InitialCapacity

  /** Rows buffered; buffered row r is the partition's row peers.base + r. */
  private var rows = 0

  override def numRows: Int = peers.base + rows
  override def firstBufferedRow: Int = peers.base
  override def lastPeerGroupStart: Int = peers.base + peers.lastGroupStart
  // Both are asked once per partition and every 1024 rows: loops, no collections.
  override def bufferBytes: Long = {
    var bytes = layout.bytesPerRow * capacity
    var k = 0
    while (k < kernels.length) { bytes += kernels(k).stateBytes; k += 1 }
    bytes
  }
  override def stateBytesPerRow: Long = {
    var bytes = 0L
    var k = 0
    while (k < kernels.length) { bytes += kernels(k).stateBytesPerRow; k += 1 }
    bytes
  }

  private var seedRows = 0
  private var seedWindowRows = 0
  private var seedGroups = 0
  private var seedStates: Array[InternalRow] = null

  override def seed(rowsBefore: Int, windowRows: Int, groupsBefore: Int,
      states: Array[InternalRow]): Unit = {
    seedRows = rowsBefore
    seedWindowRows = windowRows
    seedGroups = groupsBefore
    seedStates = states
  }

  override def startPartition(): Unit = {
    rows = 0
    peers.reset()
    peers.rowsBefore = seedRows
    peers.windowRows = seedWindowRows
    peers.groupsBefore = seedGroups
    kernels.foreach(_.startPartition())
    if (seedStates != null) {
      for (k <- kernels.indices if seedStates(k) != null) kernels(k).seed(seedStates(k))
    }
  }

  // As for `write` below: the first ingesting kernels each from a call site of its own.
  private val in0 = ingesting.lift(0).orNull
  private val in1 = ingesting.lift(1).orNull
  private val in2 = ingesting.lift(2).orNull
  private val moreIngesting = ingesting.drop(3)

  override def ingest(row: InternalRow): Unit = {
    val r = rows
    if (r == capacity) {
      capacity = Column.grownCapacity(capacity, r + 1)
      columns.foreach(_.grow(capacity, r))
      peers.grow(capacity)
    }
    if (extractor.isDefined) extractor.get.extract(row, r)
    if (tracksPeers) peers.ingested(r, peerKeys)
    rows = r + 1
    if (in0 != null) {
      in0.ingested(r)
      if (in1 != null) {
        in1.ingested(r)
        if (in2 != null) {
          in2.ingested(r)
          var k = 0
          while (k < moreIngesting.length) {
            moreIngesting(k).ingested(r)
            k += 1
          }
        }
      }
    }
  }

  override def finishPartition(): Unit = {
    val n = numRows // the partition's size, also after rows were dropped
    kernels.foreach(_.finishPartition(n))
  }

  override def needsSpark: Boolean = kernels.exists(_.needsSpark)

  // The first kernels are called each from a call site of its own (a loop would call them all
  // from one): in the operator's own copy of this class (see AlgorithmIsolation) each such site
  // sees one kernel class (each function's own copy), so the JIT inlines the kernel, and through
  // it the generated ops.
  private val k0 = kernels.lift(0).orNull
  private val k1 = kernels.lift(1).orNull
  private val k2 = kernels.lift(2).orNull
  private val k3 = kernels.lift(3).orNull
  private val k4 = kernels.lift(4).orNull
  private val k5 = kernels.lift(5).orNull
  private val moreKernels = kernels.drop(6)

  override def write(row: Int, out: InternalRow): Unit = {
    val i = row - peers.base
    val n = rows
    if (tracksPeers) peers.advance(i, n)
    if (k0 != null) {
      k0.write(i, n, out)
      if (k1 != null) {
        k1.write(i, n, out)
        if (k2 != null) {
          k2.write(i, n, out)
          if (k3 != null) {
            k3.write(i, n, out)
            if (k4 != null) {
              k4.write(i, n, out)
              if (k5 != null) {
                k5.write(i, n, out)
                var k = 0
                while (k < moreKernels.length) {
                  moreKernels(k).write(i, n, out)
                  k += 1
                }
              }
            }
          }
        }
      }
    }
  }

  override def discardBefore(row: Int): Unit = {
    val d = row - peers.base
    if (d > 0) {
      val kept = rows - d
      columns.foreach(_.shift(d, kept))
      kernels.foreach(_.shift(d))
      peers.shift(d, kept)
      rows = kept
    }
  }
}
