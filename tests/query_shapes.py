"""How the differential suite shapes its queries: which choices each case runs with, and windows
of the DataFrame API spelled from a SQL frame's text."""

from __future__ import annotations

from typing import Any, List, Sequence


def in_turns(items: Sequence[Any], choices: Sequence[Any], each: int = 1) -> List[tuple]:
    """(item, its choices): each item with ``each`` of ``choices`` taken in turn, the last item
    also with any choice not taken yet: every item and every choice run, not every pair. For
    matrices whose dimensions act apart (an order's edges whatever the frame, ANSI's errors
    whatever the frame), where the product bought queries and no case."""
    pairs, taken = [], set()
    for k, item in enumerate(items):
        picks = [choices[(k * each + j) % len(choices)] for j in range(min(each, len(choices)))]
        if k == len(items) - 1:
            picks += [c for c in choices if c not in taken and c not in picks]
        taken.update(picks)
        pairs.append((item, picks))
    return pairs


def window_of(frame: str, window: Any, *, range_order: Sequence[str],
              rows_order: Sequence[str]) -> Any:
    """``window`` (a pyspark WindowSpec) ordered and framed as the SQL ``frame`` text says
    ("rows|range between <bound> and <bound>"): for functions that have no SQL name."""
    kind, bounds = frame.split(" between ")
    lower, upper = (_frame_bound(b) for b in bounds.split(" and "))
    if kind == "range":
        return window.orderBy(*range_order).rangeBetween(lower, upper)
    return window.orderBy(*rows_order).rowsBetween(lower, upper)


def _frame_bound(text: str) -> int:
    from pyspark.sql import Window
    if text.startswith("unbounded"):
        return Window.unboundedPreceding if text.endswith("preceding") else Window.unboundedFollowing
    if text == "current row":
        return Window.currentRow
    n, direction = text.split()
    return -int(n) if direction == "preceding" else int(n)
