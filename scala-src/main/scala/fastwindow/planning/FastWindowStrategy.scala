package fastwindow.planning

import org.apache.spark.sql.catalyst.expressions.{Alias, Ascending, Attribute, BoundReference, Expression}
import org.apache.spark.sql.catalyst.expressions.{NamedExpression, SortOrder, WindowFunctionType}
import org.apache.spark.sql.catalyst.planning.PhysicalWindow
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project, Window, WindowGroupLimit}
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.catalyst.plans.physical.{HashPartitioning, UnknownPartitioning}
import org.apache.spark.sql.execution.{ProjectExec, SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.columnar.InMemoryRelation
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.execution.window.{Final, Partial, WindowGroupLimitMode}
import org.apache.spark.sql.internal.SQLConf

import fastwindow.config.FastWindowConf
import fastwindow.exec.acrosstasks.{RangeBounds, RangeOrder, RangeSplitExec, RangeTarget}
import fastwindow.exec.acrosstasks.{RangedEvaluation, StateFold, SummaryShape}
import fastwindow.exec.grouplimit.HashGroupLimitExec
import fastwindow.exec.grouporder.GroupOrderExec
import fastwindow.exec.hashwindow.HashWindowAggregateExec
import fastwindow.exec.shared.IntegralOrderKey
import fastwindow.exec.window.FastWindowExec
import fastwindow.model.{FallbackReason, Spread, WindowPlan}

/**
 * Plans a logical `Window` of SQL window functions on [[fastwindow.exec.window.FastWindowExec]]
 * (two of them, on request, when it mixes streamed and buffered functions: see `operators`) when
 * the node's support check accepts every one of its expressions; otherwise returns Nil, so Spark's
 * own `Window` strategy plans `WindowExec`, and records why.
 *
 * The reasons are stored as a tag on the logical node (the physical `WindowExec` links back to
 * it, which is how `fastwindow.explain(df)` and the extended explain find them) and logged at
 * WARN once per node: adaptive re-planning of the same node does not log again. Python UDF
 * windows (`WindowFunctionType.Python`) are never touched.
 *
 * A window of whole-partition aggregates without ORDER BY that [[HashWindowSupport]] accepts is
 * planned on [[fastwindow.exec.hashwindow.HashWindowAggregateExec]] instead (per key by hash, no
 * sort), when `spark.fastwindow.hashWindow.enabled`.
 *
 * A window with PARTITION BY and ORDER BY gets its input order from a
 * [[fastwindow.exec.grouporder.GroupOrderExec]] (rows grouped by key by hash, each window
 * partition sorted alone) instead of Spark's `Sort`, when
 * `spark.fastwindow.groupSort.enabled`, unless Spark would merge its sort with another window's
 * ([[SortPushDownGuard]]).
 *
 * A logical `WindowGroupLimit` (the top-k per group Spark's optimizer infers below a window
 * filtered by a rank-like function) is planned as a final
 * [[fastwindow.exec.grouplimit.HashGroupLimitExec]] over a partial one, as Spark plans its two
 * `WindowGroupLimitExec`s, when [[GroupLimitSupport]] accepts it and
 * `spark.fastwindow.groupLimit.enabled`; its reasons are kept the same way.
 */
object FastWindowStrategy extends SparkStrategy {

  /** Why fastwindow left a logical Window to Spark (absent when fastwindow planned it). */
  val FallbackReasons: TreeNodeTag[Seq[FallbackReason]] =
    TreeNodeTag[Seq[FallbackReason]]("fastwindow.fallbackReasons")

  val Disabled: FallbackReason = FallbackReason(FallbackReason.Disabled,
    "fastwindow is disabled for this session (spark.fastwindow.enabled=false)")

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case PhysicalWindow(WindowFunctionType.SQL, windowExprs, partitionSpec, orderSpec, child) =>
      // Planned before the windows below it: tell one sharing its PARTITION BY to keep it.
      keyedBelow(child).filter(sameKeys(_, partitionSpec))
        .foreach(_.setTagValue(SharesPartitioning, ()))
      if (!FastWindowConf.ENABLED.get()) {
        plan.setTagValue(FallbackReasons, Seq(Disabled))
        Nil
      } else {
        val keepsSparksSort = plan match {
          case window: Window => SortPushDownGuard.keepsSparksSort(window)
          case _ => false
        }
        val exec = FastWindowExec(windowExprs, partitionSpec, orderSpec, planLater(child))
        val comet = exec.support.toOption.map(
          CometPlacement.decide(_, partitionSpec.nonEmpty, SQLConf.get, slots))
        comet.collect { case CometPlacement.Take(why) => why } match {
          case Some(why) => plan.setTagValue(CometPlacement.TakenFromComet, why)
          case None => plan.unsetTagValue(CometPlacement.TakenFromComet)
        }
        val leftToComet = comet.collect { case CometPlacement.Leave(reason) => reason }
        if (leftToComet.nonEmpty) {
          plan.setTagValue(FallbackReasons, leftToComet.toSeq)
          Nil
        } else if (FastWindowConf.HASH_WINDOW_ENABLED.get() &&
          HashWindowSupport.accepts(windowExprs, partitionSpec, orderSpec,
            FastWindowConf.EXACT_FLOATS.get())) {
          plan.unsetTagValue(FallbackReasons)
          HashWindowAggregateExec(windowExprs, partitionSpec, exec.child) :: Nil
        } else exec.support match {
          case Right(windowPlan) if partitionSpec.isEmpty =>
            plan.unsetTagValue(FallbackReasons)
            withoutPartitionBy(exec, windowPlan, plan.output, child) :: Nil
          case Right(windowPlan) =>
            plan.unsetTagValue(FallbackReasons)
            splitsSkewedKeys(exec, windowPlan, plan, child)
              .getOrElse(operators(exec, windowPlan, plan.output, keepsSparksSort)) :: Nil
          case Left(reasons) =>
            recordFallback(plan, reasons)
            Nil
        }
      }
    case limit @ WindowGroupLimit(partitionSpec, orderSpec, function, k, child) =>
      val check =
        if (!FastWindowConf.ENABLED.get()) Left(Seq(Disabled))
        else if (!FastWindowConf.GROUP_LIMIT_ENABLED.get()) Left(Seq(GroupLimitDisabled))
        else GroupLimitSupport.check(partitionSpec, function)
      (check, CometPlacement.decideGroupLimit(SQLConf.get)) match {
        case (Right(_), CometPlacement.Leave(reason)) =>
          limit.setTagValue(FallbackReasons, Seq(reason))
          Nil
        case (Right(rank), _) =>
          limit.unsetTagValue(FallbackReasons)
          def node(mode: WindowGroupLimitMode, input: SparkPlan) =
            HashGroupLimitExec(partitionSpec, orderSpec, function, k, mode, rank, input)
          node(Final, node(Partial, planLater(child))) :: Nil
        case (Left(Seq(Disabled)), _) =>
          limit.setTagValue(FallbackReasons, Seq(Disabled))
          Nil
        case (Left(reasons), _) =>
          recordFallback(limit, reasons)
          Nil
      }
    case _ => Nil
  }

  /** The task slots of the session's cluster (Spark's default parallelism). */
  private def slots: Int = org.apache.spark.SparkContext.getOrCreate().defaultParallelism

  val GroupLimitDisabled: FallbackReason = FallbackReason(FallbackReason.Disabled,
    "fastwindow's group limit is disabled for this session (spark.fastwindow.groupLimit.enabled" +
      "=false)")

  /**
   * The operators for a supported window. With `spark.fastwindow.streaming.splitMixed`, a node
   * mixing functions that stream (see [[fastwindow.model.StreamBounds]]) with functions that need
   * their whole partition runs as two FastWindowExecs over the same partitioning and order: the
   * streamed functions' inputs are then held for O(frame) rows, not for the whole partition as the
   * buffering operator must hold its own. The group whose expressions come first sits below, so
   * the output keeps the node's order when each group's expressions are contiguous; otherwise a
   * projection restores it.
   */
  private def operators(exec: FastWindowExec, plan: WindowPlan, output: Seq[Attribute],
      keepsSparksSort: Boolean): SparkPlan = {
    val split = FastWindowConf.STREAMING_ENABLED.get() && FastWindowConf.STREAMING_SPLIT_MIXED.get()
    val streams = plan.outputs.map(_.collect { case b: BoundReference => b.ordinal }
        .forall(k => plan.functions(k).streamBounds.isDefined))
    val (streamed, buffered) = exec.windowExpression.zip(streams).partition(_._2)
    if (!split || streamed.isEmpty || buffered.isEmpty) {
      if (!keepsSparksSort && groupSorts(exec)) {
        exec.withNewChildren(Seq(GroupOrderExec(exec.partitionSpec, exec.orderSpec, exec.child)))
      } else exec
    } else {
      val (lower, upper) = if (streams.head) (streamed, buffered) else (buffered, streamed)
      def node(exprs: Seq[(NamedExpression, Boolean)], child: SparkPlan) =
        FastWindowExec(exprs.map(_._1), exec.partitionSpec, exec.orderSpec, child, exec.spread)
      val top = node(upper, node(lower, exec.child))
      if (top.output == output) top else ProjectExec(output, top)
    }
  }

  val AcrossTasksDisabled: Spread.OneTask =
    Spread.OneTask(s"${FastWindowConf.ACROSS_TASKS_ENABLED.key} is false")

  /**
   * A window without PARTITION BY, which Spark runs in one task: spread over ranges of its ORDER
   * BY keys when its input is at least `acrossTasks.minInputSize` (by Spark's estimate) and
   * [[AcrossTasksSupport]] finds a role for every function (see `acrossTasks`). Otherwise one
   * task, with the reason in explain.
   */
  private def withoutPartitionBy(exec: FastWindowExec, plan: WindowPlan, output: Seq[Attribute],
      child: LogicalPlan): SparkPlan = {
    val minInput = FastWindowConf.ACROSS_TASKS_MIN_INPUT_SIZE.get()
    val decision =
      if (!FastWindowConf.ACROSS_TASKS_ENABLED.get())
        Left(AcrossTasksDisabled)
      else if (child.stats.sizeInBytes < minInput)
        Left(smallInput(child.stats.sizeInBytes, minInput))
      else if (!ScanInput.sameOnRerun(child))
        Left(ScanInput.NotSameOnRerun)
      else AcrossTasksSupport.decide(plan, exec.orderSpec, child.output)
    decision match {
      case Left(spread) =>
        operators(exec.spreadAs(spread), plan, output, keepsSparksSort = true)
      case Right(_)
          if exec.orderSpec.isEmpty && ScanInput.readsOnlyScans(child) &&
            FastWindowConf.KEY_AGGREGATES_ENABLED.get() =>
        // Cheaper where the rows are, without a shuffle (KeyAggregatesPlacement); when an
        // operator above needs them in one task, they are.
        operators(exec.spreadAs(AggregatesWhereRowsAre), plan, output, keepsSparksSort = true)
      case Right(split) => acrossTasks(exec, split, output, child)
    }
  }

  private def smallInput(size: BigInt, min: Long): Spread.OneTask = Spread.OneTask(
    f"its input is smaller (Spark's estimate: $size%,d bytes) than " +
      f"${FastWindowConf.ACROSS_TASKS_MIN_INPUT_SIZE.key} ($min%,d bytes), where spreading it over " +
      "ranges costs more than it saves")

  /** The spread of a window over all rows whose aggregates KeyAggregatesPlacement places. */
  private[planning] val AggregatesWhereRowsAre = Spread.OneTask(
    "its aggregates run in every task where " +
      "its scan reads the rows (spark.fastwindow.keyAggregates.enabled), unless an operator above " +
      "needs its rows in one task")

  /** Marks a logical window whose PARTITION BY a window next to it shares (see below). */
  private val SharesPartitioning: TreeNodeTag[Unit] = TreeNodeTag[Unit]("fastwindow.sharesKeys")

  /**
   * A window with PARTITION BY and ORDER BY spread over tasks by its skewed keys (with
   * `spark.fastwindow.acrossTasks.skewedKeys`; see `acrossTasks`), or None: planned as Spark
   * plans it. Taken only where the sample that finds the skewed keys is cheap and the shuffle it
   * replaces would be there anyway: a child of scans, filters and projections (read again for
   * the sample, projected to the keys) that is not bucketed or cached by key (Spark would not
   * shuffle it), of at least `skewedKeys.minInputSize`, with no window next to it sharing its
   * PARTITION BY (Spark shuffles once for both; this window's rows would leave the other's key
   * partitioning). Keys must be compared by their bytes (the tasks look skewed keys up by them).
   */
  private def splitsSkewedKeys(exec: FastWindowExec, plan: WindowPlan, window: LogicalPlan,
      child: LogicalPlan): Option[SparkPlan] = {
    val taken = !keyedBelow(child).exists(sameKeys(_, exec.partitionSpec)) &&
      window.getTagValue(SharesPartitioning).isEmpty &&
      FastWindowConf.ACROSS_TASKS_ENABLED.get() && FastWindowConf.ACROSS_TASKS_SKEWED_KEYS.get() &&
      exec.orderSpec.nonEmpty && SQLConf.get.numShufflePartitions >= 2 &&
      exec.partitionSpec.forall(HashableKeys.hashable) &&
      ScanInput.readsOnlyScans(child) && !child.collectLeaves().exists(partitionedByKey) &&
      child.stats.sizeInBytes >= FastWindowConf.ACROSS_TASKS_SKEWED_KEYS_MIN_INPUT_SIZE.get()
    if (!taken) None
    else AcrossTasksSupport.decide(plan, exec.orderSpec, child.output) match {
      // Ranges that must run in one task at run time cannot: the tasks of a skewed key's ranges
      // hold other keys' rows too.
      case Right(split) if !split.mayRunInOneTask =>
        Some(acrossTasks(exec, split, window.output, child))
      case _ => None
    }
  }

  /** The window or group limit right below a plan (through projections and filters), if any. */
  private def keyedBelow(plan: LogicalPlan): Option[LogicalPlan] = plan match {
    case p: Project => keyedBelow(p.child)
    case f: Filter => keyedBelow(f.child)
    case w: Window => Some(w)
    case l: WindowGroupLimit => Some(l)
    case _ => None
  }

  private def sameKeys(plan: LogicalPlan, keys: Seq[Expression]): Boolean = keys.nonEmpty && {
    val theirs = plan match {
      case w: Window => w.partitionSpec
      case l: WindowGroupLimit => l.partitionSpec
      case _ => Nil
    }
    theirs.length == keys.length && theirs.zip(keys).forall { case (a, b) => a.semanticEquals(b) }
  }

  /** A leaf whose scan Spark may report as partitioned by some key (bucketed, cached). */
  private def partitionedByKey(leaf: LogicalPlan): Boolean = leaf match {
    case r: LogicalRelation => r.relation match {
        case fs: HadoopFsRelation => fs.bucketSpec.isDefined
        case _ => false
      }
    case cached: InMemoryRelation =>
      !cached.cachedPlan.outputPartitioning.isInstanceOf[UnknownPartitioning]
    case _ => false
  }

  /**
   * A window spread over ranges of its ORDER BY keys (all its rows without PARTITION BY, its
   * skewed keys' rows with it), over the shuffle and split planned here (`rangeShuffle`: the
   * operators find the map tasks' summaries below them, see
   * `fastwindow.exec.acrosstasks.RangedEvaluation`); Spark sorts each task's rows (with
   * PARTITION BY, a [[fastwindow.exec.grouporder.GroupOrderExec]] orders them when
   * `spark.fastwindow.groupSort.enabled`). Halo functions run in an operator below the seeded
   * ones.
   */
  private def acrossTasks(exec: FastWindowExec, split: AcrossTasksSupport.Split,
      output: Seq[Attribute], child: LogicalPlan): SparkPlan = split match {
    case AcrossTasksSupport.Split(halos, seededToo, haloOutputs, _) =>
      def node(halo: Boolean, spread: Spread, input: SparkPlan) = FastWindowExec(
        exec.windowExpression.zip(haloOutputs).collect { case (e, h) if h == halo => e },
        exec.partitionSpec, exec.orderSpec, input, spread)
      val seeded =
        if (halos.isEmpty) Some(exec.spreadAs(Spread.Seeded))
        else if (seededToo) Some(node(halo = false, Spread.Seeded, exec.child))
        else None
      val ranges = rangeShuffle(exec, halos, seeded.map(_.windowPlan), child)
      // Skewed keys: each task's rows grouped by key by hash, each key's rows sorted alone.
      val shuffle =
        if (exec.partitionSpec.isEmpty || !FastWindowConf.GROUP_SORT_ENABLED.get()) ranges
        else GroupOrderExec(exec.partitionSpec, rangeOrder(exec, halos), ranges,
          skewedKeysSplit = true)
      (halos, seeded) match {
        case (None, Some(s)) => s.withNewChildren(Seq(shuffle))
        case (Some(h), None) => exec.spreadAs(h).withNewChildren(Seq(shuffle))
        case (Some(h), Some(s)) =>
          val top = s.withNewChildren(Seq(node(halo = true, h, shuffle)))
          if (top.output == output) top else ProjectExec(output, top)
        case (None, None) => throw new IllegalStateException("a split without functions")
      }
  }

  /**
   * The order of a range's rows within each window partition: the ORDER BY, and with halo rows
   * its tie-break (see [[fastwindow.exec.acrosstasks.RangeOrder]]).
   */
  private def rangeOrder(exec: FastWindowExec, halos: Option[Spread.Halos]): Seq[SortOrder] =
    halos.fold(exec.orderSpec)(_ => RangeOrder.withTieBreak(exec.orderSpec, exec.child.output))

  /**
   * The shuffle that splits a window's rows into ranges of its ORDER BY keys, one per shuffle
   * partition, with the split below it that finds the ranges from a sample of the keys and
   * summarises them in the map tasks (see [[fastwindow.exec.acrosstasks.RangeSplitExec]]): the
   * summary holds the seeded operator's aggregates and the halo operator's rows. With PARTITION
   * BY, its keys lead the keys that split the rows (see `RangeBounds`).
   */
  private def rangeShuffle(exec: FastWindowExec, halos: Option[Spread.Halos],
      seeded: Option[WindowPlan], child: LogicalPlan): SparkPlan = {
    val input = exec.child
    val keysFirst = exec.partitionSpec.map(SortOrder(_, Ascending))
    val aggregates = seeded.toSeq
      .flatMap(RangedEvaluation.seededAggregates(_, Spread.Seeded))
      .flatMap(_.folded)
    val countsPeerGroups = seeded.exists(RangedEvaluation.countsPeerGroups(_, Spread.Seeded))
    val shape = SummaryShape.of(
      if (aggregates.isEmpty) None else Some(new StateFold(aggregates, input.output)),
      keysFirst ++ rangeOrder(exec, halos),
      halos,
      if (countsPeerGroups) keysFirst ++ exec.orderSpec else Nil,
      input.output
    ).copy(runKey =
      // Whether each range's rows reach the map tasks in order: one window partition, over
      // files, read in the same order when a map task runs again.
      if (exec.partitionSpec.isEmpty && ScanInput.readsOnlyScans(child)) {
        IntegralOrderKey.first(exec.orderSpec, input.output)
      } else None)
    val split = if (exec.orderSpec.isEmpty) {
      RangeSplitExec(Seq(SortOrder(HashedRowSplit.key(input.output), Ascending)), shape,
        new RangeBounds(HashedRowSplit.ranges), input, sampled = None, hashedRows = true)
    } else {
      val bounds = new RangeBounds(SQLConf.get.numShufflePartitions, exec.partitionSpec.length)
      val keyOrder = keysFirst ++ exec.orderSpec
      val keys = keyOrder.zipWithIndex.map { case (o, i) => Alias(o.child, s"_key$i")() }
      val sampled =
        if (ScanInput.readsOnlyScans(child)) Some(planLater(Project(keys, child))) else None
      RangeSplitExec(keyOrder, shape, bounds, input, sampled)
    }
    val bounds = split.bounds
    ShuffleExchangeExec(
      HashPartitioning(Seq(RangeTarget(split.orderSpec.map(_.child), bounds)), bounds.numRanges),
      split)
  }

  /**
   * Whether `spark.fastwindow.groupSort.enabled` has a window's input ordered by a
   * [[fastwindow.exec.grouporder.GroupOrderExec]] (the task's rows grouped by key by hash) instead
   * of Spark's `Sort`: it needs
   * PARTITION BY keys that group by their bytes, and an ORDER BY. Without one, Spark sorts by the keys alone, and a single key's radix sort moves rows among a
   * group's peers (to make room for NULL keys): a group's rows would not meet the functions in
   * Spark's order. With one, Spark's sort compares two or more keys, so it is TimSort, stable, as
   * each group's sort here is.
   */
  private def groupSorts(exec: FastWindowExec): Boolean =
    FastWindowConf.GROUP_SORT_ENABLED.get() && exec.orderSpec.nonEmpty &&
      exec.partitionSpec.nonEmpty && exec.partitionSpec.forall(HashableKeys.hashable)

  private def recordFallback(window: LogicalPlan, reasons: Seq[FallbackReason]): Unit = {
    val alreadyLogged = window.getTagValue(FallbackReasons).contains(reasons)
    window.setTagValue(FallbackReasons, reasons)
    if (!alreadyLogged && FastWindowConf.LOG_FALLBACK.get()) {
      logWarning(fallbackMessage(window, reasons))
    }
  }

  /**
   * The WARN line of a window left to Spark: the reasons and the node (its expressions, not a
   * node id: ids are given to the physical plan after planning).
   */
  private[planning] def fallbackMessage(
      window: LogicalPlan, reasons: Seq[FallbackReason]): String = {
    val operator =
      if (window.isInstanceOf[WindowGroupLimit]) "WindowGroupLimitExec" else "WindowExec"
    s"fastwindow: a window operator stays on Spark's $operator: " +
      s"${reasons.map(_.message).mkString("; ")}. Window: " +
      window.simpleString(SQLConf.get.maxToStringFields)
  }
}
