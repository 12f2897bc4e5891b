package fastwindow.exec.hashwindow

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{JoinedRow, UnsafeRow}

import fastwindow.exec.shared.GroupIds

/**
 * Each PARTITION BY key's whole-partition aggregates, computed without moving the rows: every map
 * task aggregates its own rows per key (Spark's aggregation buffers, updated by the aggregates'
 * update expressions), the driver merges the tasks' buffers (their merge expressions) and
 * evaluates each key's results, which [[KeyAggregatesWindowExec]] broadcasts and joins to the
 * rows where they are. Only aggregates whose results do not depend on the order of a group's rows
 * run here ([[fastwindow.planning.HashWindowSupport]]), so neither the tasks' order nor the
 * merges' can change them, and, unless `spark.fastwindow.exactFloats`, floating sums and
 * averages, which they change within float rounding; under ANSI an integral sum may still
 * overflow in one order and not in another, so each task's [[IntegralSumGuard]] parts are added
 * up: while they fit in a long, no order of any group's rows overflows.
 */
object KeyAggregates {

  /**
   * One task's keys and their buffers, as pairs packed in `pairs` ([[PackedRows]]: a byte array
   * moves between the executors and the driver at a fraction of an object per row's cost), and
   * its integral sums' parts; or, in `refused`, why it gave up: more keys than allowed, or a sum
   * that may overflow in some order.
   */
  final case class TaskStates(pairs: Array[Byte], sumParts: Array[Long], refused: Option[String])

  /** The states of one task's `rows`, giving up past `maxKeys` keys. */
  def ofTask(plan: HashWindowTask.Plan, maxKeys: Int, rows: Iterator[InternalRow]): TaskStates = {
    val keyOf = HashWindowTask.projection(plan, plan.keys, plan.childOutput)
    val initial = HashWindowTask.projection(plan, plan.initialValues, Nil)(InternalRow.empty)
    val update = HashWindowTask.updateProjection(plan)
    val guard = IntegralSumGuard.of(plan.aggregates, plan.childOutput,
      HashWindowTask.projection(plan, _, plan.childOutput))
    val toUnsafe = HashWindowTask.projection(plan, plan.childOutput, plan.childOutput)
    val ids = GroupIds(plan.keys.map(_.dataType))
    val buffers = scala.collection.mutable.ArrayBuffer[UnsafeRow]()
    val keys = scala.collection.mutable.ArrayBuffer[UnsafeRow]()
    val joined = new JoinedRow
    def refused(why: String) = TaskStates(null, null, Some(why))
    while (rows.hasNext) {
      val row = rows.next() match {
        case u: UnsafeRow => u
        case other => toUnsafe(other)
      }
      val key = keyOf(row)
      var id = ids.find(key)
      if (id < 0) {
        if (keys.length == maxKeys) return refused(s"a task has more than $maxKeys keys")
        id = ids.add(key)
        keys += key.copy()
        buffers += initial.copy()
      }
      try update.target(buffers(id)).apply(joined(buffers(id), row))
      catch {
        case _: ArithmeticException => return refused("an aggregate overflowed in a task")
      }
      guard.foreach(_.add(row))
    }
    if (guard.exists(_.tripped)) refused("an integral sum may overflow in some order")
    else {
      val pairs = keys.indices.iterator.flatMap(i => Iterator(keys(i), buffers(i)))
      TaskStates(PackedRows.pack(pairs), guard.map(_.parts).orNull, None)
    }
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
    val (keyFields, bufferFields) = (plan.keys.length, plan.bufferAttributes.length)
    try {
      for (task <- tasks) {
        val pairs = PackedRows.unpack(task.pairs)
        while (pairs.hasNext) {
          val key = pairs.next(keyFields)
          val state = pairs.next(bufferFields)
          val buffer = byKey.get(key)
          if (buffer == null) byKey.put(key, state)
          else merge.target(buffer).apply(joined(buffer, state))
        }
      }
    } catch {
      case _: ArithmeticException => return Left("an aggregate overflowed merging the tasks'")
    }
    if (byKey.size > maxKeys) Left(s"the tasks have more than $maxKeys keys in all")
    else {
      val evaluate = HashWindowTask.projection(plan, plan.evaluations, plan.bufferAttributes)
      val pairs = scala.collection.mutable.ArrayBuffer[UnsafeRow]()
      byKey.forEach { (key, buffer) =>
        pairs += key
        pairs += evaluate(buffer).copy()
      }
      Right(new ResultsPerKey(PackedRows.pack(pairs.iterator), byKey.size,
          plan.keys.map(_.dataType), plan.evaluations.length))
    }
  }
}
