package fastwindow.exec.hashwindow

import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.types.DataType

import fastwindow.exec.shared.GroupIds

/**
 * Each key's results, as the driver broadcasts them: (key, results) pairs packed in one byte
 * array, and the keys numbered over them once per executor (the broadcast value is shared by its
 * tasks), the results pointing into that array.
 */
final class ResultsPerKey(
    pairs: Array[Byte], val size: Int, keyTypes: Seq[DataType], resultFields: Int)
  extends Serializable {

  /** The keys numbered as [[GroupIds]] (primitive, for one integral key), and their results. */
  @transient private lazy val (ids, results) = {
    val ids = GroupIds(keyTypes)
    val results = new Array[UnsafeRow](size)
    val unpacked = PackedRows.unpack(pairs)
    while (unpacked.hasNext) {
      val id = ids.add(unpacked.next(keyTypes.length))
      results(id) = unpacked.next(resultFields)
    }
    (ids, results)
  }

  def bytes: Long = pairs.length

  /**
   * The results of `key`. Every key of the rows was aggregated from the same input, read once
   * before; a key without results means that input changed between the reads, and no answer
   * is better than a wrong one.
   */
  def of(key: UnsafeRow): UnsafeRow = {
    val id = ids.find(key)
    if (id < 0) {
      throw new IllegalStateException("fastwindow: a PARTITION BY key has no aggregates: the " +
        "window's input changed between its two reads; rerun the query, or set " +
        "spark.fastwindow.keyAggregates.enabled=false")
    }
    results(id)
  }
}
