package fastwindow.exec.grouplimit

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * The partial top-k's output (before the shuffle). It holds rows in `groups` and emits what the
 * limit kept when the input ends or, earlier, when memory is refused (then it starts over with an
 * empty map), as a partial aggregation flushes. With a `judge`, it stops holding where holding
 * drops too few rows to pay for itself (it passes rows on as they come, more rows than needed,
 * which is all a partial limit may give) and holds again where the keys of the rows passed on
 * start coming back: judged all through the task, never from its first rows alone
 * ([[HoldingJudge]]). What it held stays held while it passes rows on (its keys' later rows are
 * dropped against it once it holds again), and is emitted at the end.
 *
 * Groups of their own in a hash map of many keys cost a few cache misses per row, more than the
 * shuffle of the row: where such a limit would hold again over many keys, it gives the rest of
 * the task to `sortRest` instead (Spark's sorted partial limit: a sort, then the limit over the
 * sorted rows), which costs what Spark's plan costs per row.
 */
private[grouplimit] final class PartialGroupLimit(
    rows: Iterator[UnsafeRow],
    groups: TopKPerKey,
    judge: Option[HoldingJudge],
    emittedEarly: () => Unit,
    passedOn: () => Unit,
    heldAgain: () => Unit,
    sortRest: Option[Iterator[UnsafeRow] => Iterator[InternalRow]])
  extends Iterator[InternalRow] {

  private var emitting: Iterator[InternalRow] = Iterator.empty
  private var holding = true

  /** Whether `emitting` holds the map's rows: the map is cleared before it takes more. */
  private var emittedHeld = false

  /** While passing: the next row, passed on unheld. */
  private var passing: UnsafeRow = _

  /** A row refused memory, offered again once the map is emptied. */
  private var refused: UnsafeRow = _

  override def hasNext: Boolean = passing != null || emitting.hasNext || advance()

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException
    if (passing != null) {
      val row = passing
      passing = null
      row
    } else emitting.next()
  }

  private def advance(): Boolean = if (holding) hold() else pass()

  /**
   * Reads rows into the map until the input ends or memory is refused (then emits what the map
   * kept), or until holding stops paying (then passes rows on, the map kept for later: its keys'
   * rows are still dropped against it once holding starts again).
   */
  private def hold(): Boolean = {
    if (emittedHeld) {
      groups.clear()
      emittedHeld = false
    }
    if (refused != null) {
      // An empty map refused: the row passes through alone.
      if (!groups.offer(refused)) {
        val row = refused
        refused = null
        emitting = Iterator.single(row)
        return true
      }
      refused = null
    }
    while (holding && refused == null && rows.hasNext) {
      val row = rows.next()
      if (!groups.offer(row)) {
        refused = row.copy()
        emittedEarly()
      } else if (judge.exists(j =>
          j.observe(groups.offeredKey) &&
            !j.keepsHolding(groups.droppedRows, groups.numGroups))) {
        holding = false
        judge.get.switched(groups.droppedRows)
      }
    }
    if (!holding) pass() else emitHeld() || refused != null && hold()
  }

  /**
   * Passes the next row on; holds again when the judge says the keys now come back. At the end
   * of the input: emits what the map kept.
   */
  private def pass(): Boolean =
    if (!rows.hasNext) !emittedHeld && emitHeld()
    else {
      val row = rows.next()
      passedOn()
      val j = judge.get
      if (j.observe(groups.key(row)) && j.startsHolding) {
        heldAgain()
        if (sortRest.isDefined && j.manyKeys) {
          // The rows held so far, then the rest sorted and limited: the input is all read.
          val held = groups.keptRows(groups.groupIds.iterator)
          emittedHeld = true
          emitting = held ++ sortRest.get(Iterator.single(row) ++ rows)
          return emitting.hasNext
        }
        holding = true
        j.switched(groups.droppedRows)
      }
      passing = row
      true
    }

  private def emitHeld(): Boolean = {
    emitting = groups.keptRows(groups.groupIds.iterator)
    emittedHeld = true
    emitting.hasNext
  }
}

private[grouplimit] object PartialGroupLimit {

  /**
   * The judge of a partial top-k over `groups`, judging every `step` rows. Limits that keep their
   * rows in an arena (up to [[TopRowsPerGroup.MaxLimit]] rows per key) hold a row at about the
   * cost of a sort's row: holding pays from one row dropped in ten, and goes on while the share
   * dropped rises. Groups of their own (objects, larger limits) are held or sorted from two rows
   * in five. Measurements: docs/performance.md, "Top-k per group, end to end".
   */
  def judge(groups: TopKPerKey, limit: Int, step: Long): HoldingJudge =
    if (groups.keepsRowsInArena) {
      new HoldingJudge(limit, 0.1, step, holdsWhileRising = true,
        investedKeys = ArenaBetSteps * step)
    } else new HoldingJudge(limit, 0.4, step, holdsWhileRising = false, investedKeys = 0)

  /**
   * The keys a limit kept in an arena holds, in judgement steps, before it judges whether they
   * come back (524,288 at the default step, some tens of MB of rows per row kept a key): a cycle
   * of up to that many keys is dropped against from its second turn on, where passing its first
   * turn on would have sent more than Spark's rows through the shuffle.
   */
  val ArenaBetSteps: Long = 16
}
