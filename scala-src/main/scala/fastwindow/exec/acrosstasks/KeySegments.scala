package fastwindow.exec.acrosstasks

import org.apache.spark.SparkException
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}

/**
 * Splits one task's rows of a window with skewed PARTITION BY keys (sorted by PARTITION BY keys,
 * so each key's rows are consecutive) into segments evaluated apart: the rows of one skewed key
 * (a range of that key's rows, seeded by its summaries: its seed in `seeds`), or a run of rows of
 * other keys, whole in this task (no seed: null). Each segment is read before the next is asked
 * for; a row is read once and, as the window operator's input, is valid until the next read.
 *
 * Keys are compared by their bytes (the planner takes only PARTITION BY keys whose bytes decide
 * equality); a key is looked up only where it differs from the previous row's.
 */
final class KeySegments(
    input: Iterator[InternalRow],
    keyOf: UnsafeProjection,
    seeds: java.util.Map[UnsafeRow, RangeSeed])
  extends Iterator[(RangeSeed, Iterator[InternalRow])] {

  /** A row read from the input and not yet returned, and the seed of its key. */
  private var held: InternalRow = _
  private var heldSeed: RangeSeed = _

  /** The previous row's key (a copy) and its seed. */
  private var lastKey: UnsafeRow = _
  private var lastSeed: RangeSeed = _

  private var current: Iterator[InternalRow] = Iterator.empty

  private def fetch(): Boolean = held != null || (input.hasNext && {
    held = input.next()
    val key = keyOf(held)
    if (lastKey == null || key != lastKey) {
      lastSeed = seeds.get(key)
      if (lastKey == null) lastKey = key.copy() else lastKey.copyFrom(key)
    }
    heldSeed = lastSeed
    true
  })

  override def hasNext: Boolean = {
    if (current.hasNext) {
      throw SparkException.internalError("fastwindow: a segment of a task's rows was not read " +
        "to its end before the next one")
    }
    fetch()
  }

  override def next(): (RangeSeed, Iterator[InternalRow]) = {
    if (!hasNext) throw new NoSuchElementException("no more segments")
    val seed = heldSeed
    current = new Iterator[InternalRow] {
      // A skewed key's segment ends where its key does; a run of other keys at a skewed key.
      override def hasNext: Boolean = fetch() && (heldSeed eq seed)
      override def next(): InternalRow = {
        if (!hasNext) throw new NoSuchElementException("the segment has ended")
        val row = held
        held = null
        row
      }
    }
    (seed, current)
  }
}
