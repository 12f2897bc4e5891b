package fastwindow.exec.shared

import java.util.Comparator

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.types._

import fastwindow.frames.{KeyedRadixSort, StableIndexSort}

/**
 * Numbers the groups (PARTITION BY keys, as projected rows) of one task 0, 1, 2, ... in order of
 * first appearance, so per-group state lives in arrays. Keys are compared as bytes: the planner
 * only accepts key types for which that is equality.
 */
sealed trait GroupIds {

  /** The key's id, or -1 when it has none yet. */
  def find(key: UnsafeRow): Int

  /** Gives a key that has none the next id (the number of keys so far). */
  def add(key: UnsafeRow): Int

  /** The key of `id` (when `idsInKeyOrder` is None: the caller orders the keys). */
  def key(id: Int): UnsafeRow

  /** Bytes held per key, beyond the key row itself, for memory accounting. */
  def bytesPerKey: Long

  /**
   * The ids in ascending key order, NULL first, when this numbering can sort them itself
   * (in O(keys)); None when the caller must compare the key rows.
   */
  def idsInKeyOrder: Option[Array[Int]] = None

  /** How many keys have an id. */
  def count: Int

  /**
   * The ids in ascending key order, NULL first: by [[idsInKeyOrder]] where there is one, else by
   * `keyOrder` over the key rows (Spark's ordering of the keys, column i being key i).
   */
  final def idsSortedBy(keyOrder: Comparator[UnsafeRow]): Array[Int] =
    idsInKeyOrder.getOrElse {
      val sorted = Array.range(0, count)
      StableIndexSort.sort(sorted, 0, count, new Array[Int](count),
        (a: Int, b: Int) => keyOrder.compare(key(a), key(b)))
      sorted
    }

  /**
   * Whether nine in ten of `rows` rows read so far had a key of their own: then a hash of the
   * keys buys nothing (every group holds about one row), and an operator that groups rows gives
   * them to a sort instead.
   */
  final def nearlyDistinct(rows: Long): Boolean = distinctAtLeast(rows, 9, 10)

  /** Whether at least `parts` in `of` of `rows` rows read so far had a key of their own. */
  final def distinctAtLeast(rows: Long, parts: Int, of: Int): Boolean =
    rows > 0 && of.toLong * count >= parts.toLong * rows
}

object GroupIds {

  /**
   * A single integral key's slot is in a block of 16 slots (256 bytes of the table) chosen by a
   * hash of its value without the low `BlockBits` bits; those bits, turned by the same hash, are
   * its place in the block. The 16 keys of a block of values share one, so keys that come in
   * order (ids counted up, keys cycling) or clustered read consecutive slots, where a hash of the
   * whole value sends each lookup to a cache (and TLB) miss of its own; keys of one stride (whole
   * seconds as microseconds) still start at evenly spread slots.
   */
  private val BlockBits = 4
  private val BlockMask = (1L << BlockBits) - 1

  /** The fastest numbering for keys of these types. */
  def apply(keyTypes: Seq[DataType]): GroupIds = keyTypes match {
    case Seq(t) if integralWidth(t) > 0 => new SingleIntegralKey(integralWidth(t))
    case _ => new AnyKeys
  }

  /**
   * The width of an integral type's UnsafeRow value (whose values order as the longs read from
   * it), 0 for other types.
   */
  def integralWidth(t: DataType): Int = t match {
    case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => 8
    case IntegerType | DateType | _: YearMonthIntervalType => 4
    case ShortType => 2
    case ByteType | BooleanType => 1
    case _ => 0
  }

  /**
   * One integral key: its value in an open-addressing table of primitive arrays (blocks of
   * consecutive values placed by Fibonacci hashing, linear probing, at most half full), NULL
   * apart. A lookup reads two arrays, where a map of key rows follows a node, a row and its
   * bytes: with 10^5 groups and more, the cache misses of the latter dominated the whole top-k.
   */
  private[shared] final class SingleIntegralKey(width: Int) extends GroupIds {
    private var bits = 10

    /** Slot i: its value at 2i, its id + 1 at 2i + 1 (0: empty); one cache line for both. */
    private var table = new Array[Long](2 << bits)
    private var keys = 0
    private var nullId = -1

    /** By id: the key's value (NULL's slot unused). */
    private var byId = new Array[Long](16)

    private def value(key: UnsafeRow): Long = integralValue(key, 0, width)

    private def slot(v: Long): Int = {
      val h = (v >> BlockBits) * 0x9e3779b97f4a7c15L
      (h >>> (64 - bits + BlockBits)).toInt << BlockBits | ((v + (h >>> 32)) & BlockMask).toInt
    }

    override def find(key: UnsafeRow): Int =
      if (key.isNullAt(0)) nullId
      else {
        val v = value(key)
        val mask = (1 << bits) - 1
        var i = slot(v)
        while (table(2 * i + 1) != 0 && table(2 * i) != v) i = (i + 1) & mask
        table(2 * i + 1).toInt - 1
      }

    override def count: Int = keys

    /** The mean number of slots a lookup of a present key reads (1: every key in its slot). */
    private[shared] def meanProbes: Double = {
      val mask = (1 << bits) - 1
      var (sum, n, i) = (0L, 0, 0)
      while (i < (1 << bits)) {
        if (table(2 * i + 1) != 0) { sum += ((i - slot(table(2 * i))) & mask) + 1; n += 1 }
        i += 1
      }
      if (n == 0) 1.0 else sum.toDouble / n
    }

    override def add(key: UnsafeRow): Int = {
      val id = keys
      keys += 1
      if (key.isNullAt(0)) nullId = id
      else {
        if (2 * keys > (1 << bits)) grow()
        // The NULL key takes an id but no slot here, so `id` may be past the end by more than one.
        if (id >= byId.length) byId = java.util.Arrays.copyOf(byId, 2 * id)
        byId(id) = value(key)
        put(byId(id), id)
      }
      id
    }

    private def put(v: Long, id: Int): Unit = {
      val mask = (1 << bits) - 1
      var i = slot(v)
      while (table(2 * i + 1) != 0) i = (i + 1) & mask
      table(2 * i) = v
      table(2 * i + 1) = id + 1L
    }

    private def grow(): Unit = {
      val old = table
      bits += 1
      table = new Array[Long](2 << bits)
      var i = 0
      while (i < old.length) {
        if (old(i + 1) != 0) put(old(i), old(i + 1).toInt - 1)
        i += 2
      }
    }

    // Integral values order as their longs: one radix sort of the values carrying the ids.
    override def idsInKeyOrder: Option[Array[Int]] = {
      val n = keys - (if (nullId >= 0) 1 else 0)
      val (values, ids) = (new Array[Long](n), new Array[Int](n))
      var (id, i) = (0, 0)
      while (id < keys) {
        if (id != nullId) { values(i) = byId(id); ids(i) = id; i += 1 }
        id += 1
      }
      val (spareValues, spareIds) = (new Array[Long](n), new Array[Int](n))
      val sorted = if (KeyedRadixSort.sort(values, ids, spareValues, spareIds, n)) spareIds else ids
      Some(if (nullId >= 0) nullId +: sorted else sorted)
    }

    override def key(id: Int): UnsafeRow = throw new UnsupportedOperationException(
      "integral keys are ordered by idsInKeyOrder")

    // Up to four slots of 16 bytes per key (half full, and doubling), its value by id.
    override def bytesPerKey: Long = 72L
  }

  /** The integral value of `width` bytes at `ordinal`, as a long. */
  def integralValue(row: UnsafeRow, ordinal: Int, width: Int): Long = width match {
    case 8 => row.getLong(ordinal)
    case 4 => row.getInt(ordinal)
    case 2 => row.getShort(ordinal)
    case _ => row.getByte(ordinal)
  }

  /** Any other keys: a hash map of the key rows (copied). */
  private final class AnyKeys extends GroupIds {
    private val map = new java.util.HashMap[UnsafeRow, Integer]()
    private var keys = new Array[UnsafeRow](16)

    override def key(id: Int): UnsafeRow = keys(id)

    override def count: Int = map.size

    override def find(key: UnsafeRow): Int = {
      val id = map.get(key)
      if (id == null) -1 else id.intValue
    }

    override def add(key: UnsafeRow): Int = {
      val id = map.size
      if (id == keys.length) keys = java.util.Arrays.copyOf(keys, id * 2)
      keys(id) = key.copy()
      map.put(keys(id), id)
      id
    }

    // The map's entry and table slot, the boxed id, the copied row's object and header.
    override def bytesPerKey: Long = 120L
  }
}
