package fastwindow.exec.hashwindow

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{JoinedRow, UnsafeProjection, UnsafeRow}

/**
 * Each PARTITION BY key's whole-partition aggregates, computed without moving the rows: every map
 * task aggregates its own rows per key (Spark's aggregation buffers, updated by the aggregates'
 * update expressions), the driver merges the tasks' buffers (their merge expressions) and
 * evaluates each key's results, which [[KeyAggregatesWindowExec]] broadcasts and joins to the
 * rows where they are. Only aggregates whose results do not depend on the order of a group's rows
 * run here ([[fastwindow.planning.HashWindowSupport]]), so neither the tasks' order nor the
 * merges' can change them; under ANSI an integral sum may still overflow in one order and not in
 * another, so each task's [[IntegralSumGuard]] parts are added up: while they fit in a long, no
 * order of any group's rows overflows.
 */
object KeyAggregates {

  /**
   * One task's keys and their buffers (side by side), and its integral sums' parts; or, in
   * `refused`, why it gave up: more keys than allowed, or a sum that may overflow in some order.
   */
  final case class TaskStates(
      keys: Array[UnsafeRow],
      buffers: Array[UnsafeRow],
      sumParts: Array[Long],
      refused: Option[String])

  /** The states of one task's `rows`, giving up past `maxKeys` keys. */
  def ofTask(plan: HashWindowTask.Plan, maxKeys: Int, rows: Iterator[InternalRow]): TaskStates = {
    val keyOf = HashWindowTask.projection(plan, plan.keys, plan.childOutput)
    val initial = HashWindowTask.projection(plan, plan.initialValues, Nil)(InternalRow.empty)
    val update = HashWindowTask.updateProjection(plan)
    val guard = IntegralSumGuard.of(plan.aggregates, plan.childOutput,
      HashWindowTask.projection(plan, _, plan.childOutput))
    val toUnsafe = HashWindowTask.projection(plan, plan.childOutput, plan.childOutput)
    val ids = new java.util.HashMap[UnsafeRow, Integer]()
    val buffers = scala.collection.mutable.ArrayBuffer[UnsafeRow]()
    val keys = scala.collection.mutable.ArrayBuffer[UnsafeRow]()
    val joined = new JoinedRow
    def refused(why: String) = TaskStates(null, null, null, Some(why))
    while (rows.hasNext) {
      val row = rows.next() match {
        case u: UnsafeRow => u
        case other => toUnsafe(other)
      }
      val key = keyOf(row)
      var id = ids.get(key)
      if (id == null) {
        if (keys.length == maxKeys) return refused(s"a task has more than $maxKeys keys")
        id = keys.length
        keys += key.copy()
        ids.put(keys.last, id)
        buffers += initial.copy()
      }
      try update.target(buffers(id)).apply(joined(buffers(id), row))
      catch {
        case _: ArithmeticException => return refused("an aggregate overflowed in a task")
      }
      guard.foreach(_.add(row))
    }
    if (guard.exists(_.tripped)) refused("an integral sum may overflow in some order")
    else TaskStates(keys.toArray, buffers.toArray, guard.map(_.parts).orNull, None)
  }

  /**
   * Every task's states merged and evaluated into each key's results; Left(why) when a task gave
   * up, the keys of all tasks are more than `maxKeys`, or a sum may overflow in some order.
   */
  def merged(plan: HashWindowTask.Plan, tasks: Seq[TaskStates], maxKeys: Int)
      : Either[String, ResultsPerKey] =
    tasks.flatMap(_.refused).headOption.map(Left(_)).getOrElse {
      val parts = tasks.flatMap(t => Option(t.sumParts))
      if (parts.nonEmpty && IntegralSumGuard.combined(parts).isEmpty) {
        Left("an integral sum may overflow in some order")
      } else mergeAll(plan, tasks, maxKeys)
    }

  private def mergeAll(plan: HashWindowTask.Plan, tasks: Seq[TaskStates], maxKeys: Int)
      : Either[String, ResultsPerKey] = {
    val inputBuffers = plan.aggregates.flatMap(_.inputAggBufferAttributes)
    val merge = HashWindowTask.mutableProjection(plan,
      plan.aggregates.flatMap(_.mergeExpressions), plan.bufferAttributes ++ inputBuffers)
    val byKey = new java.util.HashMap[UnsafeRow, UnsafeRow]()
    val joined = new JoinedRow
    try {
      for (task <- tasks; i <- task.keys.indices) {
        val buffer = byKey.get(task.keys(i))
        if (buffer == null) byKey.put(task.keys(i), task.buffers(i))
        else merge.target(buffer).apply(joined(buffer, task.buffers(i)))
      }
    } catch {
      case _: ArithmeticException => return Left("an aggregate overflowed merging the tasks'")
    }
    if (byKey.size > maxKeys) Left(s"the tasks have more than $maxKeys keys in all")
    else {
      val evaluate = HashWindowTask.projection(plan, plan.evaluations, plan.bufferAttributes)
      val (keys, results) = (new Array[UnsafeRow](byKey.size), new Array[UnsafeRow](byKey.size))
      var i = 0
      byKey.forEach { (key, buffer) =>
        keys(i) = key
        results(i) = evaluate(buffer).copy()
        i += 1
      }
      Right(new ResultsPerKey(keys, results))
    }
  }
}

/**
 * Each key's results, as the driver broadcasts them: side by side for serialization, in a hash
 * map built once per executor (the broadcast value is shared by its tasks).
 */
final class ResultsPerKey(keys: Array[UnsafeRow], results: Array[UnsafeRow]) extends Serializable {

  @transient private lazy val byKey: java.util.HashMap[UnsafeRow, UnsafeRow] = {
    val map = new java.util.HashMap[UnsafeRow, UnsafeRow](2 * keys.length)
    keys.indices.foreach(i => map.put(keys(i), results(i)))
    map
  }

  def size: Int = keys.length

  def bytes: Long = keys.iterator.map(_.getSizeInBytes.toLong).sum +
    results.iterator.map(_.getSizeInBytes.toLong).sum

  /**
   * The results of `key`. Every key of the rows was aggregated from the same input, read once
   * before; a key without results means that input changed between the reads, and no answer
   * is better than a wrong one.
   */
  def of(key: UnsafeRow): UnsafeRow = {
    val r = byKey.get(key)
    if (r == null) {
      throw new IllegalStateException("fastwindow: a PARTITION BY key has no aggregates: the " +
        "window's input changed between its two reads; rerun the query, or set " +
        "spark.fastwindow.keyAggregates.enabled=false")
    }
    r
  }
}
