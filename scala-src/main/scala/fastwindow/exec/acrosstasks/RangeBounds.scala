package fastwindow.exec.acrosstasks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.types.{DataType, DateType, IntegerType, LongType, TimestampNTZType, TimestampType}
import org.apache.spark.unsafe.hash.Murmur3_x86_32

import fastwindow.exec.shared.IntegralOrderKey

/**
 * The ranges of the ORDER BY keys a window is split into: found on the driver when the shuffle
 * below the window is prepared ([[RangeSplitExec]]), then read by every map task.
 *
 * Without PARTITION BY (`partitionKeys` 0) the rows' keys are the ORDER BY keys, and range i holds
 * the keys above bound i-1 and up to bound i (equal keys, one range), as Spark's range
 * partitioning does; a row's slot is its range. With PARTITION BY, a row's keys are its
 * `partitionKeys` PARTITION BY keys followed by its ORDER BY keys: the rows of a skewed key (one
 * of `skewedKeys`, found from the sample) are split into `numRanges` ranges of their ORDER BY
 * keys, range i of skewed key g being slot g * numRanges + i, and go to partition i; the rows of
 * every other key go to the partition their key hashes to, whole (their slot is negative: no
 * summary is kept of them). A partition index reaches the shuffle through Spark's own hash
 * partitioning (see [[RangeTarget]]), so the shuffle is an ordinary one, coalesced and reused as
 * any other.
 */
final class RangeBounds(val numRanges: Int, val partitionKeys: Int = 0) extends Serializable {
  override def toString: String =
    if (partitionKeys == 0) s"$numRanges ranges"
    else s"skewed keys split into $numRanges ranges"

  @volatile private var bounds: Array[InternalRow] = _
  @volatile private var ordering: Ordering[InternalRow] = _
  @volatile private var preimages: Array[Int] = _
  // One integral key without NULL bounds: the bounds as longs, compared without the ordering.
  @volatile private var longBounds: Array[Long] = _
  @volatile private var longKey: RangeBounds.LongKey = _
  @volatile private var evenInts = false
  // With PARTITION BY: the skewed keys (their index), and each one's bounds.
  @volatile private var skewed: java.util.HashMap[UnsafeRow, Integer] = _
  @volatile private var keyBounds: Array[Array[InternalRow]] = _
  @transient private lazy val partitionKeyOf = RangeBounds.prefix(partitionKeys, keyTypes)
  @volatile private var keyTypes: Seq[DataType] = _
  // One integral PARTITION BY key: the skewed ones as sorted longs (their groups beside them, and
  // the NULL key's group or -1), looked up without projecting the key.
  @volatile private var skewedLongs: Array[Long] = _
  @volatile private var skewedLongGroups: Array[Int] = _
  @volatile private var nullGroup: Int = -1
  @volatile private var partitionLongKey: RangeBounds.LongKey = _

  private[acrosstasks] def set(upperBounds: Array[InternalRow], keyOrder: Seq[SortOrder]): Unit = {
    preimages = RangeBounds.hashPreimages(numRanges)
    ordering = new LazilyGeneratedOrdering(keyOrder)
    longKey = RangeBounds.LongKey(keyOrder).orNull
    longBounds =
      if (longKey == null || upperBounds.exists(_.isNullAt(0))) null
      else upperBounds.map(longKey.value)
    bounds = upperBounds
  }

  /**
   * One int key spread evenly over the ints (a hash of the rows): `numRanges` ranges of equal
   * width, a key's range computed, not searched: range i holds the keys k with
   * floor((k - Int.MinValue) * numRanges / 2^32) = i (the bounds say the same).
   */
  private[acrosstasks] def setEvenInts(keyOrder: Seq[SortOrder]): Unit = {
    set(Array.tabulate(numRanges - 1) { i =>
        val width = ((1L << 32) * (i + 1) + numRanges - 1) / numRanges // rounded up
        InternalRow((Int.MinValue + width - 1).toInt)
      }, keyOrder)
    evenInts = true
  }

  /**
   * With PARTITION BY: the skewed keys (PARTITION BY keys only) with the upper bounds of each
   * one's ranges (rows of all keys, each bound one of its own rows).
   */
  private[acrosstasks] def setSkewed(
      keys: Seq[(UnsafeRow, Array[InternalRow])], keyOrder: Seq[SortOrder]): Unit = {
    preimages = RangeBounds.hashPreimages(numRanges)
    ordering = new LazilyGeneratedOrdering(keyOrder)
    keyTypes = keyOrder.map(_.dataType)
    val index = new java.util.HashMap[UnsafeRow, Integer]()
    keys.zipWithIndex.foreach { case ((key, _), g) => index.put(key, g) }
    keyBounds = keys.map(_._2).toArray
    skewed = index
    partitionLongKey = RangeBounds.LongKey(keyOrder.take(partitionKeys)).orNull
    if (partitionLongKey != null) {
      val valued = keys.map(_._1).zipWithIndex.filterNot(_._1.isNullAt(0))
        .map { case (key, g) => (partitionLongKey.value(key), g) }.sortBy(_._1)
      skewedLongs = valued.map(_._1).toArray
      skewedLongGroups = valued.map(_._2).toArray
      nullGroup = keys.indexWhere(_._1.isNullAt(0))
    }
  }

  /** The skewed keys, in the order of their slots (none without PARTITION BY). */
  def skewedKeys: Seq[UnsafeRow] = {
    val keys = new Array[UnsafeRow](skewed.size)
    skewed.forEach((key, g) => keys(g) = key)
    keys.toSeq
  }

  /** How many slots hold summaries: one per range, and with PARTITION BY per skewed key. */
  def numSlots: Int = if (partitionKeys == 0) numRanges else numRanges * skewed.size

  /** The upper bound of range i (not the last), as `set` or `setEvenInts` made it. */
  private[acrosstasks] def bound(i: Int): InternalRow = bounds(i)

  /** The group (skewed key, or the one window without PARTITION BY) of a slot, and its range. */
  def groupOf(slot: Int): Int = slot / numRanges

  /** The partition of a slot (see the class's comment). */
  def partitionOf(slot: Int): Int = if (slot >= 0) slot % numRanges else -1 - slot

  /** The slot of a row's keys (see the class's comment). */
  def rangeOf(keys: InternalRow): Int =
    if (evenInts) (((keys.getInt(0).toLong - Int.MinValue) * numRanges) >>> 32).toInt
    else if (partitionLongKey != null) {
      val g =
        if (keys.isNullAt(0)) nullGroup
        else {
          val at = java.util.Arrays.binarySearch(skewedLongs, partitionLongKey.value(keys))
          if (at >= 0) skewedLongGroups(at) else -1
        }
      if (g >= 0) g * numRanges + search(keyBounds(g), keys)
      else if (keys.isNullAt(0)) -1
      else {
        val hash = Murmur3_x86_32.hashLong(partitionLongKey.value(keys), 42)
        -1 - ((hash % numRanges + numRanges) % numRanges)
      }
    } else if (partitionKeys > 0) {
      val key = partitionKeyOf(keys)
      val g = skewed.get(key)
      if (g == null) {
        val hash = Murmur3_x86_32.hashUnsafeBytes(
          key.getBaseObject, key.getBaseOffset, key.getSizeInBytes, 42)
        -1 - ((hash % numRanges + numRanges) % numRanges)
      } else g * numRanges + search(keyBounds(g), keys)
    } else if (longBounds != null && !keys.isNullAt(0)) rangeOfLong(longKey.value(keys))
    else search(bounds, keys)

  /** The range of one integral key's non-null value, where the bounds are longs. */
  private def rangeOfLong(key: Long): Int = {
    val bounds = longBounds // volatile fields, read once
    val ascending = longKey.ascending
    var low = 0
    var high = bounds.length
    while (low < high) {
      val mid = (low + high) >>> 1
      val above = if (ascending) key > bounds(mid) else key < bounds(mid)
      if (above) low = mid + 1 else high = mid
    }
    low
  }

  /** The first of `bounds` not below `keys`. */
  private def search(bounds: Array[InternalRow], keys: InternalRow): Int = {
    var low = 0
    var high = bounds.length
    while (low < high) {
      val mid = (low + high) >>> 1
      if (ordering.gt(keys, bounds(mid))) low = mid + 1 else high = mid
    }
    low
  }

  /** An int that Spark's hash partitioning into `numRanges` partitions sends to `range`. */
  def preimage(range: Int): Int = preimages(range)

  // The last row whose range rangeOfRow found, with the thread that found it: a field checked
  // against the current thread rather than a ThreadLocal, whose lookup cost more than the search
  // (a task's RangeTarget and split share this object; another thread's entry is a miss).
  @transient private var lastFound: RangeBounds.LastRow = _

  /**
   * The range of the split's `row` (whose keys are `keys(row)`), kept for [[takeRangeOf]]: the
   * shuffle asks for the same row's range at once, in the same thread. `column`: the one ORDER
   * BY key when it is a column of the row (or null), read in place instead of projected.
   */
  def rangeOfRow(row: InternalRow, keys: InternalRow => InternalRow,
      column: IntegralOrderKey): Int = {
    val range = row match {
      case unsafe: UnsafeRow
          if column != null && longBounds != null && !evenInts &&
            partitionKeys == 0 && !column.isNull(unsafe) =>
        rangeOfLong(column.value(unsafe))
      case _ => rangeOf(keys(row))
    }
    var last = lastFound
    if (last == null || (last.thread ne Thread.currentThread())) {
      last = new RangeBounds.LastRow(Thread.currentThread())
      lastFound = last
    }
    last.row = row
    last.range = range
    range
  }

  /**
   * The range of `row`: the one `rangeOfRow` kept if it was for this row in this thread
   * (forgotten then, as the row's object may come back holding the next row), else found here.
   */
  def takeRangeOf(row: InternalRow, keys: InternalRow => InternalRow): Int = {
    val last = lastFound
    if (last != null && (last.thread eq Thread.currentThread()) && (last.row eq row)) {
      last.row = null
      last.range
    } else rangeOf(keys(row))
  }
}

object RangeBounds {

  /** The last row whose range `thread` found (see `RangeBounds.rangeOfRow`). */
  private final class LastRow(val thread: Thread) {
    var row: InternalRow = _
    var range: Int = 0
  }

  /** One ORDER BY key of an integral type, read as a long, and its direction. */
  final case class LongKey(ascending: Boolean, isInt: Boolean) {
    def value(keys: InternalRow): Long = if (isInt) keys.getInt(0).toLong else keys.getLong(0)
  }

  object LongKey {
    def apply(keyOrder: Seq[SortOrder]): Option[LongKey] = keyOrder match {
      case Seq(only) => only.dataType match {
          case IntegerType | DateType => Some(LongKey(only.isAscending, isInt = true))
          case LongType | TimestampType | TimestampNTZType =>
            Some(LongKey(only.isAscending, isInt = false))
          case _ => None
        }
      case _ => None
    }
  }

  /** The first `n` of keys of `types` (an unsafe row of its own, reused). */
  def prefix(n: Int, types: Seq[DataType]): UnsafeProjection =
    UnsafeProjection.create(types.take(n).zipWithIndex.map { case (t, i) =>
      BoundReference(i, t, nullable = true)
    })

  /** Spark's hash partitioning: `pmod(murmur3(value, seed 42), n)`. */
  private def hashPartition(value: Int, n: Int): Int = {
    val h = Murmur3_x86_32.hashInt(value, 42) % n
    if (h < 0) h + n else h
  }

  /** For each partition of `n`, the smallest non-negative int that hashes to it. */
  def hashPreimages(n: Int): Array[Int] = {
    val found = Array.fill(n)(-1)
    var left = n
    var value = 0
    while (left > 0) {
      val p = hashPartition(value, n)
      if (found(p) < 0) {
        found(p) = value
        left -= 1
      }
      value += 1
    }
    found
  }

  /**
   * At most `n - 1` increasing bounds that split weighted sample keys (each standing for `weight`
   * keys) into `n` ranges of about equal weight.
   */
  def split(samples: Seq[(InternalRow, Double)], n: Int, ordering: Ordering[InternalRow])
      : Array[InternalRow] = {
    val sorted = samples.sortBy(_._1)(ordering)
    val step = sorted.map(_._2).sum / n
    val bounds = Array.newBuilder[InternalRow]
    var last: InternalRow = null
    var found = 0
    var weight = 0.0
    val each = sorted.iterator
    while (each.hasNext && found < n - 1) {
      val (key, w) = each.next()
      weight += w
      // A key equal to the last bound cannot start a new range: equal keys share one.
      if (weight >= step * (found + 1) && (last == null || ordering.gt(key, last))) {
        bounds += key
        last = key
        found += 1
      }
    }
    bounds.result()
  }
}
