"""What :func:`fastwindow.explain` returns: one :class:`WindowReport` per window operator."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Optional, Tuple


@dataclass(frozen=True)
class WindowReport:
    """One window operator of a physical plan and who runs it.

    Attributes:
        operator: ``"FastWindow"`` or Spark's ``"Window"``; for the top-k per group Spark plans
            below a window filtered by ``row_number``/``rank``/``dense_rank`` <= k,
            ``"FastGroupLimit"`` or Spark's ``"WindowGroupLimit"`` (one partial, one final).
        fastwindow: True when fastwindow runs the operator.
        window_expressions: the window expressions it computes, as Spark prints them.
        partition_spec: its PARTITION BY expressions.
        order_spec: its ORDER BY expressions.
        reason: for an operator Spark runs, why fastwindow did not take it: every reason, as
            one sentence (None otherwise).
        reasons: the same reasons as ``(id, message)`` pairs; ids are stable (``disabled``,
            ``not-installed``, ``python-udf``, ``unsupported-function``, ``unsupported-type``,
            ``unsupported-frame``, ``unsupported-argument``, ``unsupported-order-key``,
            ``unsupported-expression``).
        metrics: once the query has run, FastWindow's non-zero SQL metrics by name (e.g.
            ``numStreamedPartitions``, ``numBufferedPartitions``,
            ``numHandedOverPartitions``, ``spillSize``, ``peakMemory`` in bytes); empty before
            execution and for Spark's operator.
        note: what fastwindow's operator avoids (a FastGroupLimit says it needs no sort).
    """

    operator: str
    fastwindow: bool
    window_expressions: Tuple[str, ...] = ()
    partition_spec: Tuple[str, ...] = ()
    order_spec: Tuple[str, ...] = ()
    reason: Optional[str] = None
    reasons: Tuple[Tuple[str, str], ...] = ()
    metrics: Dict[str, int] = field(default_factory=dict, compare=False)
    note: Optional[str] = None

    @classmethod
    def from_json(cls, obj: dict) -> "WindowReport":
        """Builds a report from one object of ``FastWindow.explainJson``'s array."""

        def strings(key: str) -> Tuple[str, ...]:
            value = obj.get(key) or ()
            return tuple(str(v) for v in value)

        reason = obj.get("reason")
        return cls(
            operator=str(obj.get("operator", "?")),
            fastwindow=bool(obj.get("fastwindow", False)),
            window_expressions=strings("windowExpressions"),
            partition_spec=strings("partitionSpec"),
            order_spec=strings("orderSpec"),
            reason=None if reason is None else str(reason),
            reasons=tuple((str(r.get("id", "")), str(r.get("message", "")))
                          for r in obj.get("reasons") or () if isinstance(r, dict)),
            metrics={str(k): int(v) for k, v in (obj.get("metrics") or {}).items()},
            note=None if obj.get("note") is None else str(obj["note"]),
        )

    def __str__(self) -> str:
        who = f"{self.operator} ({'fastwindow' if self.fastwindow else 'Spark'})"
        spec = []
        if self.partition_spec:
            spec.append("PARTITION BY " + ", ".join(self.partition_spec))
        if self.order_spec:
            spec.append("ORDER BY " + ", ".join(self.order_spec))
        lines = [f"{who}: {' '.join(spec) if spec else '(whole input)'}"]
        lines += [f"    {expr}" for expr in self.window_expressions]
        if self.note:
            lines.append(f"    {self.note}")
        if self.reasons:
            lines += [f"    not accelerated ({rid}): {message}" for rid, message in self.reasons]
        elif self.reason:
            lines.append(f"    not accelerated: {self.reason}")
        if self.metrics:
            lines.append("    metrics: " + ", ".join(f"{k}={v}" for k, v in self.metrics.items()))
        return "\n".join(lines)


def _as_list(data: Any) -> Iterable[dict]:
    if isinstance(data, dict):  # tolerate {"windows": [...]}
        data = data.get("windows", [data])
    return [obj for obj in data if isinstance(obj, dict)]
