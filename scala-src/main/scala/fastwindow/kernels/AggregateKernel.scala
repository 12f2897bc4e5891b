package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow

import fastwindow.frames.{NthRow, PeerGroups, SlidingAggregate}
import fastwindow.ops.{AggregateOps, ValueOps}

/**
 * A declarative aggregate (count, sum, avg, min, max, stddev, first, ...) over a frame, one class
 * per frame shape. The aggregate's own expressions run in its [[AggregateOps]] (types, null
 * handling, ANSI overflow errors and decimal rounding are Spark's by construction); these
 * kernels decide which rows go into which aggregation buffer, the accumulator unless noted.
 */
object AggregateKernel {

  /**
   * UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING: O(n), updated as rows arrive and evaluated once,
   * so the partition's rows need not stay buffered. Seeded (a range of a window spread over
   * tasks), the seed is the state of every row of the window, this range's included: evaluated
   * at once, the result is known before the range's first row (see `EmitPolicy.seededRange`).
   */
  final class WholePartition(ops: AggregateOps) extends Kernel {
    private var seeded = false
    override def startPartition(): Unit = {
      ops.reset()
      seeded = false
    }
    override def seed(state: InternalRow): Unit = {
      ops.seed(state)
      ops.evaluate()
      seeded = true
    }
    override def readsOnIngest: Boolean = true
    override def ingested(r: Int): Unit = if (!seeded) ops.add(r)
    override def finishPartition(n: Int): Unit = if (!seeded) ops.evaluate()
    override def write(i: Int, n: Int, out: InternalRow): Unit = ops.writeResult(out)
  }

  /** ROWS UNBOUNDED PRECEDING AND CURRENT ROW: O(n), one update and one evaluation per row. */
  final class RunningRows(ops: AggregateOps) extends Kernel {
    override def startPartition(): Unit = ops.reset()
    override def seed(state: InternalRow): Unit = ops.seed(state)
    override def write(i: Int, n: Int, out: InternalRow): Unit = {
      ops.add(i)
      ops.write(out)
    }
  }

  /**
   * RANGE UNBOUNDED PRECEDING AND CURRENT ROW: O(n), each peer group added when its first row is
   * reached and evaluated once.
   */
  final class RunningRange(ops: AggregateOps, peers: PeerGroups) extends Kernel {
    override def startPartition(): Unit = ops.reset()
    override def seed(state: InternalRow): Unit = ops.seed(state)
    override def write(i: Int, n: Int, out: InternalRow): Unit = {
      if (i == peers.start) {
        ops.addRange(peers.start, peers.end)
        ops.evaluate()
      }
      ops.writeResult(out)
    }
  }

  /**
   * Sliding ROWS and RANGE frames: O(n) whatever their width by the two stacks
   * (`fastwindow.frames.TwoStacks`), or folded in Spark's order (`fastwindow.frames.InSparkOrder`).
   * Seeded (a range of a window spread over tasks), a frame shrinking to the range's end is
   * followed by the seed: the state of the rows of the ranges after it.
   */
  final class Sliding(stacks: SlidingAggregate) extends Kernel {
    override def startPartition(): Unit = stacks.reset()
    override def seed(state: InternalRow): Unit = stacks.seedAfter(state)
    override def write(i: Int, n: Int, out: InternalRow): Unit =
      stacks.write(i, n, out)
    override def shift(d: Int): Unit = stacks.shift(d)
    override def stateBytes: Long = stacks.stateBytes
    override def stateBytesPerRow: Long = stacks.stateBytesPerRow
  }

  /** nth_value over a sliding frame: O(1) amortized per row, by position ([[NthRow]]). */
  final class NthValueSliding(nth: NthRow, values: ValueOps) extends Kernel {
    override def startPartition(): Unit = nth.reset()
    override def write(i: Int, n: Int, out: InternalRow): Unit = {
      val p = nth.find(i, n)
      if (p >= 0) values.write(p, out) else values.writeDefault(i, out)
    }
    override def shift(d: Int): Unit =
      throw new IllegalStateException("nth_value over a sliding frame is never streamed")
    override def stateBytes: Long = nth.stateBytes
    override def stateBytesPerRow: Long = 4L
  }
}
