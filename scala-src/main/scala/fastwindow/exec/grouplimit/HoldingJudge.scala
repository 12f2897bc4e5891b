package fastwindow.exec.grouplimit

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.expressions.UnsafeRow

import fastwindow.exec.shared.DistinctKeySketch

/**
 * Judges, all through a task, whether a partial top-k should hold its rows (and drop those its
 * limit cuts) or pass them on: holding costs a hash lookup and often a copy per row, passing a
 * row costs its trip through the shuffle. A prefix of the task cannot tell: when ids are
 * assigned in order and keys repeat in a cycle, the first rows show no repeated key although
 * every key repeats later. So the judgement is made every `step` rows of the task, from what the
 * task has shown so far:
 *
 *  - the distinct keys of its rows, counted by a [[DistinctKeySketch]], and how fast new ones
 *    came over the last half of its rows (the last half, not the last step: a sketch's error
 *    would swamp one step's growth): they predict the share of the next rows a limit of `limit`
 *    per key would drop (none while every key is new; a growing share once keys come back);
 *  - while holding, the share of the rows held since holding started that the limit did drop.
 *
 * Holding goes on while either share reaches `minDropShare` or, where holding is cheap
 * (`holdsWhileRising`), the predicted one still rises (by more than a sketch's noise), for at
 * least two steps once it starts, and while it holds at most `investedKeys` keys: until then
 * holding is a bet that their keys come back later in the task (a cycle of keys shorter than
 * that pays it back), which costs little where holding is cheap. Passing holds again as soon
 * as the predicted share reaches `minDropShare`.
 */
private[grouplimit] final class HoldingJudge(
    limit: Int, minDropShare: Double, step: Long, holdsWhileRising: Boolean,
    investedKeys: Long) {
  private val keys = new DistinctKeySketch
  private var taskRows = 0L

  /** The estimated distinct keys after each step of the task's rows. */
  private val keysAfterStep = ArrayBuffer[Double]()

  /** Since holding or passing last started: rows, and the top-k's dropped rows at its start. */
  private var phaseRows = 0L
  private var droppedAtStart = 0L

  /** At the last judgement point and the one before: the share of the next rows a limit drops. */
  private var predictedDropShare = 0.0
  private var previousDropShare = 0.0

  /**
   * Counts `key` (the next row's); true at a judgement point (every `step` rows of the task), at
   * which `keepsHolding` or `startsHolding` is asked.
   */
  def observe(key: UnsafeRow): Boolean = {
    keys.add(key)
    taskRows += 1
    phaseRows += 1
    val judges = taskRows % step == 0
    if (judges) {
      previousDropShare = predictedDropShare
      predictedDropShare = predictDropShare()
    }
    judges
  }

  /**
   * At a judgement point while holding `heldKeys` keys: whether holding still pays, or may soon
   * (the predicted share still rising: keys coming back more and more; few keys held yet).
   */
  def keepsHolding(droppedRows: Long, heldKeys: Long): Boolean =
    phaseRows < 2 * step || heldKeys <= investedKeys ||
      (droppedRows - droppedAtStart) >= minDropShare * phaseRows ||
      predictedDropShare >= minDropShare ||
      holdsWhileRising && predictedDropShare > previousDropShare + HoldingJudge.Rise

  /** At a judgement point while passing: whether holding would pay now. */
  def startsHolding: Boolean = predictedDropShare >= minDropShare

  /** Whether the task has had more keys than a hash map holds in a processor's caches. */
  def manyKeys: Boolean = keysAfterStep.lastOption.exists(_ > HoldingJudge.CachedKeys)

  /** Holding or passing starts; `droppedRows` is the top-k's count of dropped rows so far. */
  def switched(droppedRows: Long): Unit = {
    phaseRows = 0
    droppedAtStart = droppedRows
  }

  /**
   * The share of the next rows a limit of `limit` per key would drop: those whose key is not new
   * (one minus the pace at which new keys came over the last half of the task's rows) and, of
   * them, those whose key has had `limit` rows already, for keys whose rows come as a Poisson
   * process at the task's rows per key so far.
   */
  private def predictDropShare(): Double = {
    val seen = math.max(1.0, keys.estimate)
    keysAfterStep += seen
    val steps = keysAfterStep.length
    val (halfRows, seenAtHalf) =
      if (steps < 2) (0L, 0.0) else ((steps / 2) * step, keysAfterStep(steps / 2 - 1))
    val newPerRow = math.min(1.0, math.max(0.0, seen - seenAtHalf) / (taskRows - halfRows))
    (1.0 - newPerRow) * HoldingJudge.atLeast(limit, taskRows / seen)
  }
}

private object HoldingJudge {

  /** Keys whose groups a hash map holds mostly in a processor's caches (a few MB). */
  val CachedKeys = 32768

  /** A rise of the predicted share per step that is more than a sketch's noise. */
  val Rise = 0.02

  /** P(X >= k) for X ~ Poisson(mean). */
  def atLeast(k: Int, mean: Double): Double = {
    var (term, below, i) = (math.exp(-mean), 0.0, 0)
    while (i < k) {
      below += term
      i += 1
      term *= mean / i
    }
    math.max(0.0, 1.0 - below)
  }
}
