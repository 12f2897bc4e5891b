package fastwindow.exec.acrosstasks

import scala.util.Random

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst
  .expressions.{Add, BoundReference, Descending, EvalMode, Literal, NullsFirst, SortOrder, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering
import org.apache.spark.sql.types.LongType
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.exec.acrosstasks.SplitRows.{input, key, v}
import fastwindow.model.{FrameShape, RangeEdge, Spread}

/**
 * The halo rows of a window's ranges combined from random map tasks' summaries, against the
 * window's rows taken whole in its order (the ORDER BY key, then the tie-break of
 * [[RangeOrder]]): the last rows before each range and the first after it that lag/lead and ROWS
 * frames count, the nearest rows with a value lag/lead IGNORE NULLS read (however far), and the
 * rows a RANGE frame bounded by value offsets reaches from the range's first and last rows; no
 * seeds exactly when a key plus an offset wraps around or a neighbour holds more reached rows than
 * its summary keeps.
 */
class HaloRowsPropertySuite extends AnyFunSuite {

  private val trials = 1500

  test("halo rows equal the rows next to each range in the whole window") {
    val random = new Random(61004L)
    val seen = scala.collection.mutable.Map.empty[String, Int].withDefaultValue(0)
    for (trial <- 0 until trials) check(random, trial, seen)
    info(s"$trials trials: $seen")
    Seq("seeded", "reached", "too far", "wraps", "with values").foreach { kind =>
      assert(seen(kind) >= 20, s"only ${seen(kind)} '$kind' of $trials: $seen")
    }
  }

  private def check(random: Random, trial: Int,
      seen: scala.collection.mutable.Map[String, Int]): Unit = {
    val keyOrder = SplitRows.randomOrder(random)
    val order = RangeOrder.withTieBreak(Seq(keyOrder), input)
    val ordering = new LazilyGeneratedOrdering(order, input)
    val (lo, hi) = (-random.nextInt(4).toLong, random.nextInt(4).toLong)
    val reach = if (random.nextBoolean()) Some(valueReach(keyOrder, lo, hi, random)) else None
    val nonNull = Seq(v, key).filter(_ => random.nextInt(3) == 0)
      .map(e => Spread.NonNullHalo(e, random.nextInt(3), random.nextInt(3)))
    val halos = Spread.Halos(random.nextInt(4), random.nextInt(4), nonNull, reach)
    val shape = SummaryShape.of(None, order, Some(halos), Nil, input)
    val rows = SplitRows.randomRows(random, wideKeys = reach.isDefined && random.nextInt(4) == 0)
    val split = SplitRows.split(random, rows, keyOrder, ordering, shape)
    val (tasks, starts, all) = (split.tasks, split.starts, split.all)
    def context = s"trial $trial, order ${keyOrder.sql}, $halos (keeps ${shape.keptFirst} " +
      s"first, ${shape.keptLast} last), tasks' rows (key, v, id): " +
      tasks.map(_.map(r => s"(${SplitRows.key(r)}, ${SplitRows.value(r)}, ${r.getLong(2)})")
          .mkString(" ")).mkString(" | ")
    val result = RangeSeeds.combine(split.summaries, None, None, Nil, 1,
      (_, _) => throw new AssertionError("no states to fold"), halos.before, halos.after,
      shape.nonNull, ordering, shape.reach)
    if (nonNull.nonEmpty) seen("with values") += 1
    // The rows a range's first (last) row reaches by value before (after) it, a run of rows
    // next to it; None when a key plus an offset wraps around.
    val edges = reach.map(_ => edgesOf(keyOrder, lo, hi))
    val wraps = edges.exists(e => all.exists(r => e.wraps(SplitRows.key(r))))
    val reachedBefore = tasks.indices.map { t =>
      if (edges.isEmpty || tasks(t).isEmpty) 0
      else all.take(starts(t)).reverseIterator
        .takeWhile(r => edges.get.reachedBefore(SplitRows.key(tasks(t).head), SplitRows.key(r)))
        .length
    }
    val reachedAfter = tasks.indices.map { t =>
      if (edges.isEmpty || tasks(t).isEmpty) 0
      else all.drop(starts(t + 1)).iterator
        .takeWhile(r => edges.get.reachedAfter(SplitRows.key(tasks(t).last), SplitRows.key(r)))
        .length
    }
    // Too far: a task's reached rows hold more of another task's rows than it keeps at that end.
    def tooFar(reached: Int => Int, rowsAt: (Int, Int) => Seq[Int], kept: Int): Boolean =
      edges.isDefined && tasks.indices.exists { t =>
        tasks.indices.filter(j => j != t && tasks(j).length > kept)
          .exists(j => rowsAt(t, j).count(_ < reached(t)) >= kept)
      }
    // rowsAt(t, j): for each row of task j, how far from task t it is (0: the nearest).
    val beforeTooFar = tooFar(reachedBefore,
      (t, j) =>
        if (j >= t) Nil else (starts(j) until starts(j + 1)).map(i => starts(t) - 1 - i),
      shape.keptLast)
    val afterTooFar = tooFar(reachedAfter,
      (t, j) =>
        if (j <= t) Nil else (starts(j) until starts(j + 1)).map(i => i - starts(t + 1)),
      shape.keptFirst)
    if (wraps) seen("wraps") += 1
    else if (beforeTooFar || afterTooFar) seen("too far") += 1
    result match {
      case None =>
        assert(wraps || beforeTooFar || afterTooFar, s"no seeds: $context")
      case Some(seeds) =>
        seen("seeded") += 1
        if (reachedBefore.exists(_ > halos.before) || reachedAfter.exists(_ > halos.after)) {
          seen("reached") += 1
        }
        assert(!wraps && !beforeTooFar && !afterTooFar, s"seeds where none can be: $context")
        for (t <- tasks.indices) {
          val (start, end) = (starts(t), starts(t + 1))
          val before = all.take(start)
          val after = all.drop(end)
          val expectedBefore =
            (before.takeRight(math.max(halos.before, reachedBefore(t))) ++ nonNull.flatMap { h =>
              before.filter(hasValue(h)).takeRight(h.before)
            }).distinct.sorted(ordering)
          val expectedAfter =
            (after.take(math.max(halos.after, reachedAfter(t))) ++ nonNull.flatMap { h =>
              after.filter(hasValue(h)).take(h.after)
            }).distinct.sorted(ordering)
          assert(ids(seeds(t).before) == ids(expectedBefore), s"task $t's rows before: $context")
          assert(ids(seeds(t).after) == ids(expectedAfter), s"task $t's rows after: $context")
          assert(seeds(t).rows == tasks(t).length && seeds(t).rowsBefore == start &&
              seeds(t).windowRows == all.length && seeds(t).states.forall(_ == null), context)
        }
    }
  }

  private def ids(rows: Seq[UnsafeRow]): Seq[Long] = rows.map(_.getLong(2))

  private def hasValue(h: Spread.NonNullHalo)(row: InternalRow): Boolean =
    (if (h.input == v) SplitRows.value(row) else SplitRows.key(row)).isDefined

  /**
   * A RANGE frame between `lo` and `hi` (offsets of the key in the ORDER BY direction: lo <= 0
   * <= hi) as the planner builds it: each edge the key plus the offset, its sign flipped for DESC.
   */
  private def valueReach(keyOrder: SortOrder, lo: Long, hi: Long,
      random: Random): Spread.ValueReach = {
    val sign = if (keyOrder.direction == Descending) -1 else 1
    val mode = if (random.nextBoolean()) EvalMode.ANSI else EvalMode.LEGACY
    def edge(offset: Long) =
      RangeEdge.Offset(Add(BoundReference(0, LongType, nullable = true), Literal(sign * offset),
          mode))
    val frame = FrameShape.SlidingRange(edge(lo), edge(hi), Some(keyOrder), "range")
    Spread.ValueReach(Seq(frame), 1 + random.nextInt(12))
  }

  /** The frame's reach in exact arithmetic: which keys a row's frame holds. */
  private final case class Edges(ascending: Boolean, nullsFirst: Boolean, lo: Long, hi: Long) {
    private def toward(k: Long, offset: Long): BigInt =
      BigInt(k) + (if (ascending) offset else -offset)

    def wraps(k: Option[Long]): Boolean = k.exists { k =>
      Seq(toward(k, lo), toward(k, hi)).exists(e => e < Long.MinValue || e > Long.MaxValue)
    }

    /** Whether a row with key `k` before a range is in the frame of its first row's (`first`). */
    def reachedBefore(first: Option[Long], k: Option[Long]): Boolean = (first, k) match {
      case (Some(f), Some(x)) =>
        if (ascending) BigInt(x) >= toward(f, lo) else BigInt(x) <= toward(f, lo)
      case (None, None) => true
      case (None, Some(_)) => nullsFirst // a key comes after a NULL edge when NULLs come first
      case (Some(_), None) => false
    }

    /** Whether a row with key `k` after a range is in the frame of its last row's (`last`). */
    def reachedAfter(last: Option[Long], k: Option[Long]): Boolean = (last, k) match {
      case (Some(l), Some(x)) =>
        if (ascending) BigInt(x) <= toward(l, hi) else BigInt(x) >= toward(l, hi)
      case (None, None) => true
      case (None, Some(_)) => !nullsFirst
      case (Some(_), None) => false
    }
  }

  private def edgesOf(keyOrder: SortOrder, lo: Long, hi: Long): Edges =
    Edges(keyOrder.direction != Descending, keyOrder.nullOrdering == NullsFirst, lo, hi)
}
