package fastwindow.kernels

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{SpecificInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.DataType

import fastwindow.frames.StableIndexSort
import fastwindow.ops.ValueOps

/**
 * Ids of a buffered partition's values, for kernels that count values (distinct counts, sums,
 * modes): equal values get equal ids, from a hash map of their unsafe bytes built once per
 * partition, so two values are the same when their bytes are (the caller's key makes that
 * Spark's equality: binary collations, floating values normalized where Spark treats NaN and
 * -0.0 as one). Rows whose key is null get no id (-1).
 *
 * @param key the key of each buffered row
 */
final class ValueIds(key: ValueOps, keyType: DataType) {
  private val scratch = new SpecificInternalRow(Seq(keyType))
  private val keyBytes = UnsafeProjection.create(Array(keyType))
  private val ids = new java.util.HashMap[UnsafeRow, Integer]
  private var keys = new Array[UnsafeRow](16)
  private var keyByteCount = 0L
  private var rows = 0

  /** Each buffered row's id, -1 where it has none. */
  var rowIds = new Array[Int](16)

  /** Numbers the values of rows `0 until n`, in the order they first appear. */
  def assign(n: Int): Unit = {
    if (rowIds.length < n) rowIds = new Array[Int](math.max(n, rowIds.length * 2))
    ids.clear()
    keyByteCount = 0L
    rows = n
    var r = 0
    while (r < n) {
      key.write(r, scratch)
      rowIds(r) = if (scratch.isNullAt(0)) -1 else idOf(keyBytes(scratch))
      r += 1
    }
  }

  private def idOf(value: UnsafeRow): Int = {
    val known = ids.get(value)
    if (known != null) known
    else {
      val id = ids.size
      val copy = value.copy()
      ids.put(copy, id)
      if (keys.length <= id) keys = java.util.Arrays.copyOf(keys, keys.length * 2)
      keys(id) = copy
      keyByteCount += value.getSizeInBytes + ValueIds.EntryBytes
      id
    }
  }

  /** The number of distinct values. */
  def count: Int = ids.size

  /** The key (a row of one column, of the key's type) of `id`. */
  def keyOf(id: Int): UnsafeRow = keys(id)

  /**
   * Renumbers the ids in the order of their values, by `ordering` over rows of the value alone
   * (the key's one field: ordering the key structs themselves builds an ordering per comparison).
   */
  def sort(ordering: Ordering[InternalRow]): Unit = {
    val values = Array.tabulate[InternalRow](count)(id => keys(id).getStruct(0, 1))
    val byKey = Array.range(0, count)
    StableIndexSort.sort(byKey, 0, count, new Array[Int](count),
      (a: Int, b: Int) => ordering.compare(values(a), values(b)))
    val rank = new Array[Int](count)
    val sorted = new Array[UnsafeRow](count)
    var k = 0
    while (k < count) {
      rank(byKey(k)) = k
      sorted(k) = keys(byKey(k))
      k += 1
    }
    System.arraycopy(sorted, 0, keys, 0, count)
    var r = 0
    while (r < rows) {
      if (rowIds(r) >= 0) rowIds(r) = rank(rowIds(r))
      r += 1
    }
  }

  def bytes: Long = 4L * rowIds.length + 8L * keys.length + keyByteCount
}

object ValueIds {

  /** A hash map entry, its boxed id and an `UnsafeRow` object, besides the value's bytes. */
  val EntryBytes: Long = 96L

  /** Per buffered row: its id, and at most one value's entry and reference. */
  def bytesPerRow(keyType: DataType): Long = 4L + 8L + EntryBytes + 16L + keyType.defaultSize
}
