package fastwindow.config

import fastwindow.config.ConfValues._

/**
 * Every `spark.fastwindow.*` key, in one place.
 *
 * All keys are runtime SQL confs: they can be set on the builder, with `spark.conf.set` or with
 * `SET key=value` in SQL, and are read from the active session when a query is planned (planning
 * keys) or when a task starts (execution keys, captured on the driver and shipped with the plan).
 *
 * A value that does not parse is an error that names the key and the accepted values; it is never
 * silently replaced by the default. Registered with Spark's SQL conf when fastwindow is installed
 * (`org.apache.spark.sql.fastwindow.SqlConfRegistration`), a key refuses such a value when it is
 * set; only a window query reads the keys, so a value that got in before (set on a session
 * before `FastWindow.install`) fails window queries, with that error, and nothing else.
 *
 * The configuration table of the docs (docs/configuration.md) is generated from [[FastWindowConf.entries]]
 * (`python -m fastwindow config --markdown`), and a test checks the two agree.
 */
object FastWindowConf extends ConfDeclarations {

  type Entry[T] = ConfEntry[T]

  val ENABLED: Entry[Boolean] = entry(
    "spark.fastwindow.enabled",
    default = true,
    doc = "Plan supported window operators on FastWindowExec. When false every window runs on " +
      "Spark's WindowExec; switchable at runtime, per session.",
    parse = bool
  )

  val CODEGEN_MODE: Entry[String] = entry(
    "spark.fastwindow.codegen.mode",
    default = CodegenMode.Fallback,
    doc = "How window evaluators are built: FALLBACK (generated code, interpreted twin if " +
      "compilation fails), CODEGEN_ONLY (generated code, fail on compile errors), NO_CODEGEN " +
      "(interpreted twin only) or VERIFY (fastwindow's tests: both, over the same rows of each " +
      "task, failing where they differ; holds each task's rows in memory). Both paths give " +
      "identical results.",
    parse = oneOf(CodegenMode.all)
  )

  val LOG_FALLBACK: Entry[Boolean] = entry(
    "spark.fastwindow.logFallback",
    default = true,
    doc = "Log at WARN, once per window node of a query, why a window operator stays on " +
      "Spark's WindowExec.",
    parse = bool
  )

  val STREAMING_ENABLED: Entry[Boolean] = entry(
    "spark.fastwindow.streaming.enabled",
    default = true,
    doc = "Evaluate windows whose functions need only a bounded number of neighbouring rows " +
      "(row_number, rank, dense_rank, lead/lag, running frames, moving ROWS frames) while rows " +
      "stream through, holding O(frame) rows instead of the partition. When false every " +
      "partition is buffered whole, as WindowExec does.",
    parse = bool
  )

  val STREAMING_MAX_PENDING_ROWS: Entry[Int] = entry(
    "spark.fastwindow.streaming.maxPendingRows",
    default = 4096,
    doc = "While streaming, input rows waiting for their results (a lead's offset, a group of " +
      "ORDER BY ties under a RANGE frame) are held in memory up to this many rows; past it the " +
      "rest of that partition goes to Spark's spillable window buffer and is emitted when the " +
      "partition ends.",
    parse = positiveInt
  )

  val STREAMING_SPLIT_MIXED: Entry[Boolean] = entry(
    "spark.fastwindow.streaming.splitMixed",
    default = false,
    doc =
      "Run a window that mixes streamed functions (row_number, lag, running and moving frames) " +
        "with functions that need their whole partition as two operators, so only the latter's " +
        "inputs are held for the whole partition (the rows are buffered either way, spillable). " +
        "Less column memory per buffered row, at a CPU cost (docs/performance.md), hence off " +
        "by default.",
    parse = bool
  )

  val EXACT_FLOATS: Entry[Boolean] = entry(
    "spark.fastwindow.exactFloats",
    default = false,
    doc = "Compute floating-point aggregates (sum of float/double, avg of any non-decimal, " +
      "stddev, variance, skewness, kurtosis, co-moments, product) bit for bit as Spark does: " +
      "each moving, shrinking and RANGE frame folded in row order from its first row, " +
      "O(rows x frame width) like WindowExec but over primitive columns, and every frame's " +
      "rows added in Spark's order. When false, those frames take O(rows) whatever their " +
      "width, whole-partition aggregates run per key by hash (rows added as they arrive) and " +
      "sums and averages merge partial sums of several tasks (across tasks, or aggregated " +
      "where the rows are): results may differ from Spark's in the last bits (see \"Exact " +
      "results\" in docs/user-guide.md). Non-floating results are Spark's bit for bit either way.",
    parse = bool
  )

  val MEMORY_MAX_PARTITION_BYTES: Entry[Long] = entry(
    "spark.fastwindow.memory.maxPartitionBytes",
    default = 0L,
    doc = "Most memory (a size: 512m, 2g) the column buffers and frame state of one window " +
      "partition may take; 0 means no limit but what Spark's memory manager grants. A partition " +
      "that would need more, or that the memory manager refuses, before any of its rows is " +
      "returned, is evaluated by Spark's own window frames over its spillable rows instead: " +
      "the same results, slower, and it fits wherever WindowExec fits. Shown as \"window " +
      "partitions handed to Spark\" in the operator's metrics.",
    parse = byteSize
  )

  val GROUP_LIMIT_ENABLED: Entry[Boolean] = entry(
    "spark.fastwindow.groupLimit.enabled",
    default = true,
    doc = "Run the top-k per group Spark's optimizer adds below a window filtered by " +
      "row_number, rank or dense_rank <= k (Spark's WindowGroupLimitExec, before and after the " +
      "shuffle) on FastGroupLimit: per-group bounded buffers in a hash map instead of a sort of " +
      "every row, so no Sort is planned below it; the survivors come out in the order the " +
      "window above needs.",
    parse = bool
  )

  /**
   * The per-task memory cap of a hash operator (what it `holds`, what it does `whenRefused`), 0
   * by default: no cap but what Spark's memory manager grants.
   */
  private def memoryCap(key: String, holds: String, whenRefused: String): Entry[Long] = entry(
    key,
    default = 0L,
    doc = s"Most memory (a size: 256m, 1g) $holds; 0 means no limit but what Spark's memory " +
      s"manager grants. Past it, or when the memory manager refuses, $whenRefused: the same " +
      "results, slower.",
    parse = byteSize
  )

  val GROUP_LIMIT_MAX_MEMORY_BYTES: Entry[Long] = memoryCap(
    "spark.fastwindow.groupLimit.maxMemoryBytes",
    holds = "one task's FastGroupLimit may hold in kept rows",
    whenRefused = "the partial top-k (before the shuffle) emits what it holds and starts over, " +
      "and the final one sorts its rows with Spark's spilling sorter instead"
  )

  val HASH_WINDOW_ENABLED: Entry[Boolean] = entry(
    "spark.fastwindow.hashWindow.enabled",
    default = true,
    doc = "Run a window of whole-partition aggregates without ORDER BY whose results do not " +
      "depend on the order of the rows (count, min and max of non-floating values, integral " +
      "and decimal sums: sum(v) OVER (PARTITION BY k); floating sums, averages and moments " +
      "too unless spark.fastwindow.exactFloats), by keys Spark sorts by comparisons " +
      "(strings, binary, several keys), per key in a hash map, in two passes over the task's " +
      "spillable rows, instead of sorting every row by the keys: no Sort is planned below it, " +
      "and its output has no order. Off: FastWindow runs it over sorted input.",
    parse = bool
  )

  val KEY_AGGREGATES_ENABLED: Entry[Boolean] = entry(
    "spark.fastwindow.keyAggregates.enabled",
    default = true,
    doc = "Run a window that runs per key by hash (see spark.fastwindow.hashWindow.enabled) " +
      "without shuffling its rows, where its input is a scan with filters and projections " +
      "(read twice, cheaply and identically) and no operator above needs its rows clustered by " +
      "key: each map task aggregates its rows per key, the driver merges the tasks' states and " +
      "broadcasts each key's results, and the rows are read again and joined to them where " +
      "they are. When there are more keys than spark.fastwindow.keyAggregates.maxKeys, or an " +
      "integral sum could overflow in some order, the rows are shuffled by key and sorted, as " +
      "in Spark's plan. " +
      "A window of aggregates with neither PARTITION BY nor ORDER BY (OVER ()) over such an " +
      "input runs the same way, with one key: in every task instead of the one task Spark " +
      "moves every row into.",
    parse = bool
  )

  val KEY_AGGREGATES_MAX_KEYS: Entry[Int] = entry(
    "spark.fastwindow.keyAggregates.maxKeys",
    default = 32768,
    doc = "Most PARTITION BY keys whose results spark.fastwindow.keyAggregates.enabled " +
      "broadcasts (per map task and in all); past it a map task stops its first read and the " +
      "rows are shuffled by key and sorted (with that many keys a sort groups them faster than " +
      "a hash). The keys' results are held on the driver and on each executor. " +
      "Past a few tens of thousands of keys each map task's per-key state leaves the " +
      "processor's caches, and the shuffle, which splits the keys between tasks, costs less " +
      "(docs/performance.md). Past it, with AQE on, the " +
      "shuffle has four partitions per core (at most spark.sql.shuffle.partitions): AQE " +
      "cannot coalesce a shuffle the operator makes itself.",
    parse = positiveInt
  )

  val HASH_WINDOW_MAX_MEMORY_BYTES: Entry[Long] = memoryCap(
    "spark.fastwindow.hashWindow.maxMemoryBytes",
    holds = "one task's per-key aggregates and row groups may take",
    whenRefused = "the task sorts its rows with Spark's spilling sorter and runs Spark's own " +
      "window evaluation over them"
  )

  val GROUP_SORT_ENABLED: Entry[Boolean] = entry(
    "spark.fastwindow.groupSort.enabled",
    default = true,
    doc = "Order a FastWindow's input itself instead of Spark's Sort below it, for a window with " +
      "PARTITION BY and ORDER BY: each task's rows grouped by PARTITION BY key by hash in O(n), " +
      "the keys sorted, then each window partition sorted alone by the ORDER BY keys (stably, " +
      "so ties keep Spark's order). No Sort is planned below it and its output is in the order " +
      "Spark's Sort gives. A task whose keys are nearly all distinct (see " +
      "spark.fastwindow.distinctKeys.sampleRows) or whose rows do not fit in memory is sorted " +
      "by Spark's sorter instead. Off: Spark sorts every task.",
    parse = bool
  )

  val GROUP_SORT_MAX_MEMORY_BYTES: Entry[Long] = memoryCap(
    "spark.fastwindow.groupSort.maxMemoryBytes",
    holds = "one task's grouped rows may take",
    whenRefused = "the task sorts its rows with Spark's spilling sorter, as Spark's Sort would"
  )

  val DISTINCT_KEYS_SAMPLE_ROWS: Entry[Int] = entry(
    "spark.fastwindow.distinctKeys.sampleRows",
    default = 32768,
    doc = "After this many rows of a task, the group sort and the final top-k check whether " +
      "nine rows in ten had a PARTITION BY key of their own; if so, grouping by hash buys " +
      "nothing, and they give the task's rows to Spark's sorter. The partial top-k " +
      "(before the shuffle) judges every this many rows, all through the task, whether " +
      "holding rows drops enough of them to pay (one in ten for limits up to 8 rows, two in " +
      "five otherwise, from the rows it dropped and the distinct keys it saw, counted by a " +
      "sketch): if not, it passes rows on, and holds again when their keys come back. " +
      "Limits up to 8 rows first hold up to 16 times this many keys, betting that they come " +
      "back; a larger limit over more than 32,768 keys sorts the rest of the task instead of " +
      "holding again, as Spark's partial limit does. 0: never check (always group, always " +
      "hold).",
    parse = nonNegativeInt
  )

  val ACROSS_TASKS_ENABLED: Entry[Boolean] = entry(
    "spark.fastwindow.acrossTasks.enabled",
    default = true,
    doc = "Run a window without PARTITION BY (where Spark moves every row into one task) in as " +
      "many tasks as spark.sql.shuffle.partitions: the rows are split into ranges of the ORDER " +
      "BY keys (bounds from a sample of the keys), the map tasks summarise each range (row " +
      "count, aggregate states, its first and last rows), and each task evaluates its range " +
      "seeded with what comes before it. Taken when every function is row_number, rank, " +
      "dense_rank (whose ranges' distinct ORDER BY values the map tasks count when the rows " +
      "reach them in that order, else a second read of the shuffle's output), percent_rank, cume_dist, ntile, lag/lead, a sum, average, " +
      "count, min/max or bit aggregate over a running, whole or shrinking frame whose partial states " +
      "merge, or a function over a ROWS " +
      "frame bounded on both sides or a RANGE frame bounded on both sides by value offsets or " +
      "CURRENT ROW (see spark.fastwindow.acrossTasks.maxHaloRows); otherwise, " +
      "and when false, such a window runs in one task, and the report says why. Among rows with " +
      "equal ORDER BY keys, which comes first may differ from a one-task run, as it does between " +
      "Spark runs on a cluster (see docs/support.md).",
    parse = bool
  )

  val ACROSS_TASKS_MAX_HALO_ROWS: Entry[Int] = entry(
    "spark.fastwindow.acrossTasks.maxHaloRows",
    default = 1000,
    doc = "Most rows a window without PARTITION BY may read from neighbouring ranges to run " +
      "across tasks (lag(x, n) reads n, a ROWS frame of n PRECEDING reads n); each task gets " +
      "them on the driver from the map tasks' summaries, which hold that many rows of each " +
      "range's start and end (map tasks x ranges x rows x 2 in all; past " +
      "spark.fastwindow.acrossTasks.maxSummaryEntries the ranges are summarised from a " +
      "second read of the shuffle's output instead: keep it small). A " +
      "window that reaches further runs in one task. RANGE frames with value offsets reach as " +
      "many rows as the keys within the offsets hold, known only at run time: the summaries " +
      "keep this many rows of each range's start and end, and when a range's frames reach " +
      "further (or a key plus an offset wraps around) the ranges are evaluated in one task.",
    parse = positiveInt
  )

  /** The smallest input, by Spark's estimate, for which a feature with a fixed cost is used. */
  private def minInputSize(key: String, default: Long, forWhich: String): Entry[Long] = entry(
    key,
    default,
    doc = "The smallest input (Spark's size estimate of the window's input plan: the files it " +
      s"reads, or a finished stage's output under adaptive execution) for which $forWhich",
    parse = byteSize
  )

  val ACROSS_TASKS_MIN_INPUT_SIZE: Entry[Long] = minInputSize(
    "spark.fastwindow.acrossTasks.minInputSize",
    default = 32L * 1024 * 1024,
    forWhich = "spark.fastwindow.acrossTasks.enabled spreads a window without PARTITION BY; a " +
      "smaller one runs in one task, as the ranges' sample job and summaries add a fixed cost " +
      "that a small input does not repay (docs/performance.md). 0 spreads every such window."
  )

  val ACROSS_TASKS_RANGES_IN_ORDER: Entry[Boolean] = entry(
    "spark.fastwindow.acrossTasks.rangesInOrder",
    default = true,
    doc = "With spark.fastwindow.acrossTasks.enabled, read a range that needs no sort in order " +
      "instead of sorting it: where the window's first ORDER BY key is one integral, date or " +
      "timestamp column and each map task sent the range its rows in that order, over spans " +
      "of keys that do not overlap (a table written in that order, as time series often " +
      "are), the range's shuffle blocks read one after the other give its rows sorted. The " +
      "map tasks follow the order with one comparison per row; ties are allowed only where " +
      "the window needs no more order than that key (no lag/lead or moving frame, one ORDER " +
      "BY key). Off: Spark sorts every range.",
    parse = bool
  )

  val ACROSS_TASKS_SKEWED_KEYS: Entry[Boolean] = entry(
    "spark.fastwindow.acrossTasks.skewedKeys",
    default = false,
    doc = "With spark.fastwindow.acrossTasks.enabled, also spread a window with PARTITION BY " +
      "and ORDER BY whose input is read from files or tables (scans, filters, projections) " +
      "and at least spark.fastwindow.acrossTasks.skewedKeys.minInputSize: a sample of its keys " +
      "(a job that reads the key columns) finds at run time the keys that hold at least a " +
      "quarter of one task's share of the rows (all rows / spark.sql.shuffle.partitions); " +
      "their rows are split into ranges of the ORDER BY keys over every task, summarised and " +
      "seeded as a window without PARTITION BY is, and the other keys' rows go to their tasks " +
      "by hash, whole. Not taken when a window above or below it has the same PARTITION BY " +
      "(it would need a shuffle of its own), or for the functions a window without PARTITION " +
      "BY keeps in one task. Off by default: the sample costs every such window a read of its " +
      "key columns, also when no key is skewed, and the window's output is no longer " +
      "clustered by its PARTITION BY keys (see docs/support.md).",
    parse = bool
  )

  val ACROSS_TASKS_SKEWED_KEYS_MIN_INPUT_SIZE: Entry[Long] = minInputSize(
    "spark.fastwindow.acrossTasks.skewedKeys.minInputSize",
    default = 64L * 1024 * 1024,
    forWhich = "spark.fastwindow.acrossTasks.skewedKeys samples the keys: the sample is a job " +
      "of its own that reads the key columns, which a small input does not repay."
  )

  val BESIDE_COMET: Entry[String] = entry(
    "spark.fastwindow.besideComet",
    default = BesideCometMode.Auto,
    doc = "When DataFusion Comet runs windows in the session (spark.plugins names its " +
      "CometPlugin, and spark.comet.enabled, spark.comet.exec.enabled and " +
      "spark.comet.exec.window.enabled are not false): AUTO leaves to Comet's native window " +
      "the windows it runs natively and faster (docs/support.md, \"Beside DataFusion " +
      "Comet\"), plans the others on fastwindow, and takes back any window Comet hands to " +
      "Spark's WindowExec; " +
      "TAKE_ALL plans every window fastwindow supports, as without Comet; LEAVE_ALL leaves to " +
      "Comet every window it runs natively. Without Comet it changes nothing.",
    parse = oneOf(BesideCometMode.all)
  )

  val BESIDE_COMET_MIN_SLOTS: Entry[Int] = entry(
    "spark.fastwindow.besideComet.minSlotsAcrossTasks",
    default = 8,
    doc = "With spark.fastwindow.besideComet=AUTO, the fewest task slots (Spark's default " +
      "parallelism) from which a window without PARTITION BY runs on fastwindow across tasks " +
      "rather than in Comet's one native task. Comet's task was measured faster on 2 slots " +
      "(docs/performance.md); fastwindow's ranges divide their work by the slots.",
    parse = positiveInt
  )

  /** All keys, in declaration (documentation) order; the internal limits last. */
  def entries: Seq[Entry[_]] = declaredEntries ++ FastWindowLimits.entries

  /** A markdown table of every key: the docs' configuration page. */
  def markdownTable: String = {
    val header = "| key | default | meaning |\n|---|---|---|\n"
    header + entries.map { e =>
      s"| `${e.key}` | `${e.defaultString}` | ${if (e.internal) "*Internal.* " else ""}${e.doc} |"
    }.mkString("\n")
  }

  /**
   * Checks every fastwindow key set in `settings` (a session's configuration; done by `enable`
   * and once per query with a window, by `fastwindow.planning.SettingsCheck`), so a bad value
   * fails before any key is used, and an unknown `spark.fastwindow.*` key (a typo) fails too,
   * naming the known keys.
   */
  def validate(settings: Map[String, String]): Unit = settings.foreach { case (key, raw) =>
    if (key.startsWith(Prefix)) entries.find(_.key == key) match {
      case Some(e) => e.check(raw)
      case None => throw new IllegalArgumentException(
          s"Unknown fastwindow setting $key; the keys are: ${entries.map(_.key).mkString(", ")}")
    }
  }

  val Prefix = "spark.fastwindow."
}
