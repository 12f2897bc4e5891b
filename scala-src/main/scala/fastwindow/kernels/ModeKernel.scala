package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{DataType, StructType}

import fastwindow.frames.{FrameLocator, ModeCounts, PeerGroups}
import fastwindow.ops.ValueOps

/**
 * `mode(x)` over any frame whose edges only move forward (whole, running, moving, shrinking, ROWS
 * or RANGE) in O(n log d) per partition (d distinct values): values get ids in their order
 * ([[ValueIds]]), and the frame's ids are counted in a [[ModeCounts]] as rows enter and leave
 * it. Spark counts each frame's values again in a hash map (O(w) per row).
 *
 * Where values tie for the largest count, Spark's `mode(x, true)` (and `WITHIN GROUP (ORDER BY x)`)
 * returns the lowest of them (`DESC`: the highest); plain `mode(x)` returns the first its hash
 * map iterates, which fastwindow does not reproduce: the results are computed when the partition
 * is complete (walking its frames with a cursor of its own over the peer groups), and a
 * partition with such a tie is handed to Spark ([[needsSpark]]).
 *
 * @param locator  the frame's locator over a walk of the peer groups
 * @param key      the value of each row in a struct of one field, null where it is not counted
 * @param ordering the values' order (over rows of the value alone), for ties broken by it
 * @param tieBreak `Some(highest)` where ties are broken by the values' order, None where Spark's
 *                 hash map breaks them
 */
final class ModeKernel(
    locator: PeerGroups => FrameLocator,
    peers: PeerGroups,
    key: ValueOps,
    keyType: DataType,
    ordering: Ordering[InternalRow],
    tieBreak: Option[Boolean],
    ordinal: Int)
  extends Kernel {

  private val ids = new ValueIds(key, keyType)
  private val counts = new ModeCounts
  private val valueType = keyType.asInstanceOf[StructType].head.dataType
  private val writeValue = new ValueWriter(ordinal, valueType)

  /** Each row's mode (a value id), -1 where its frame holds no value. */
  private var modes = new Array[Int](16)
  private var tiedWithoutOrder = false

  override def finishPartition(n: Int): Unit = {
    ids.assign(n)
    ids.sort(ordering)
    counts.reset(ids.count)
    if (modes.length < n) modes = new Array[Int](math.max(n, modes.length * 2))
    tiedWithoutOrder = false
    val walk = peers.replay()
    val frame = locator(walk)
    frame.reset()
    var (lo, hi, i) = (0, 0, 0)
    while (i < n && !tiedWithoutOrder) {
      walk.advance(i, n)
      frame.locate(i, n)
      val end = math.max(frame.last + 1, frame.first)
      while (hi < end) {
        if (ids.rowIds(hi) >= 0) counts.add(ids.rowIds(hi))
        hi += 1
      }
      while (lo < frame.first) {
        if (ids.rowIds(lo) >= 0) counts.remove(ids.rowIds(lo))
        lo += 1
      }
      modes(i) =
        if (counts.isEmpty) -1
        else {
          tiedWithoutOrder = tieBreak.isEmpty && counts.tied
          counts.mode(highest = tieBreak.getOrElse(false))
        }
      i += 1
    }
  }

  override def needsSpark: Boolean = tiedWithoutOrder

  override def write(i: Int, n: Int, out: InternalRow): Unit = {
    val id = modes(i)
    writeValue(out, if (id < 0) null else ids.keyOf(id).getStruct(0, 1).get(0, valueType))
  }

  override def shift(d: Int): Unit = throw new IllegalStateException("modes are never streamed")
  override def stateBytes: Long = ids.bytes + counts.bytes + 4L * modes.length
  override def stateBytesPerRow: Long = ValueIds.bytesPerRow(keyType) + ModeCounts.BytesPerRank + 4L
}
