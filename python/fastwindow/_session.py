"""Turning fastwindow on for a SparkSession, and asking it what it did.

Three ways to enable fastwindow, all equivalent once the session exists:

* before the session exists: ``fastwindow.configure(SparkSession.builder).getOrCreate()``;
* on a live classic session (also one created without the jar): ``fastwindow.enable(spark)``;
* outside Python: ``spark-submit --jars "$(python -m fastwindow jar)"
  --conf spark.sql.extensions=fastwindow.FastWindowExtensions app.py``.

Spark Connect sessions have no JVM on the client: fastwindow must be installed on the server.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Tuple, TypeVar

from ._errors import FastWindowError
from ._jar import check_spark_version, has_class, jar_path
from ._version import __version__

__all__ = [
    "configure",
    "enable",
    "disable",
    "is_enabled",
    "explain",
    "explain_string",
    "WindowReport",
    "server_config_lines",
    "ENABLED_KEY",
    "EXTENSIONS_CLASS",
    "EXPLAIN_GENERATOR_CLASS",
]

ENABLED_KEY = "spark.fastwindow.enabled"
EXTENSIONS_CLASS = "fastwindow.FastWindowExtensions"
EXPLAIN_GENERATOR_CLASS = "fastwindow.explain.FastWindowExplainGenerator"
API_CLASS = "fastwindow.FastWindow"

B = TypeVar("B")


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------


def _pyspark_version() -> str:
    """Version of the pyspark this process imports (what a new session will run)."""
    import pyspark

    return pyspark.__version__


def _split_csv(value: Any) -> List[str]:
    if value is None:
        return []
    return [v.strip() for v in str(value).split(",") if v.strip()]


def _normalise_jar(entry: str) -> str:
    path = entry
    if path.startswith("file://"):
        path = path[len("file://"):]
    elif path.startswith("file:"):
        path = path[len("file:"):]
    if "://" in path:  # hdfs://, s3a://, ...: compare as written
        return entry
    return os.path.realpath(os.path.expanduser(path))


def _append_csv(existing: Any, value: str, *, same=lambda a, b: a == b) -> str:
    items = _split_csv(existing)
    if not any(same(item, value) for item in items):
        items.append(value)
    return ",".join(items)


def server_config_lines(jar: Optional[str] = None) -> List[str]:
    """The Spark confs that enable fastwindow, as ``key value`` pairs (spark-defaults.conf)."""
    if jar is None:
        try:
            jar = jar_path()
        except FastWindowError:
            jar = "/path/to/fastwindow-spark<major.minor>_2.13-%s.jar" % __version__
    return [
        f"spark.jars {jar}",
        f"spark.sql.extensions {EXTENSIONS_CLASS}",
    ]


def _connect_error(what: str, spark: Any, detail: Optional[str] = None) -> FastWindowError:
    try:
        jar = jar_path()
    except FastWindowError:
        jar = "/path/to/fastwindow-spark<major.minor>_2.13-%s.jar" % __version__
    if detail is None:
        kind = f"{type(spark).__module__}.{type(spark).__qualname__}"
        detail = (f"got {kind}, which has none (a Spark Connect session: no "
                  "_jsparkSession/_jvm)")
    return FastWindowError(
        f"fastwindow.{what}() needs a classic SparkSession with a local JVM, but {detail}. "
        "With Spark Connect, queries are planned on the Connect server, so fastwindow must be "
        "installed there. "
        "Start the server with the jar and the extension:\n\n"
        f"    $SPARK_HOME/sbin/start-connect-server.sh \\\n"
        f"      --jars {jar} \\\n"
        f"      --conf spark.sql.extensions={EXTENSIONS_CLASS}\n\n"
        "or add these lines to the server's spark-defaults.conf "
        "(`python -m fastwindow config` prints them):\n\n"
        + "".join(f"    {line}\n" for line in server_config_lines(jar))
        + f"\nFrom a Connect client you can then switch it per session with "
        f"spark.conf.set(\"{ENABLED_KEY}\", \"false\" | \"true\").")


def _is_connect_session(spark: Any) -> bool:
    # A Connect session can only exist if its module was imported; never import it ourselves
    # (it needs grpc and friends).
    module = sys.modules.get("pyspark.sql.connect.session")
    cls = getattr(module, "SparkSession", None) if module is not None else None
    return cls is not None and isinstance(spark, cls)


def _classic(spark: Any, what: str) -> Tuple[Any, Any]:
    """(jvm, jsparkSession) of a classic session; FastWindowError for Connect or non-sessions."""
    if _is_connect_session(spark):
        raise _connect_error(what, spark)
    try:
        jss = getattr(spark, "_jsparkSession", None)
        jvm = getattr(spark, "_jvm", None)
    except Exception:  # e.g. PySparkAttributeError subclasses raised by other session kinds
        jss = jvm = None
    if jss is None or jvm is None:
        raise _connect_error(what, spark)
    return jvm, jss


def _class_loadable(jvm: Any, loader: Any) -> bool:
    try:
        jvm.java.lang.Class.forName(API_CLASS, True, loader)
        return True
    except Exception:  # Py4JJavaError wrapping ClassNotFoundException / NoClassDefFoundError
        return False


def _api(spark: Any, *, add_jar: bool) -> Any:
    """py4j handle on the JVM object ``fastwindow.FastWindow``, or None when it is not loaded.

    With ``add_jar``, a session started without the jar gets it through ``ADD JAR`` (which puts
    it on the session's class loader and ships it to executors).
    """
    from py4j.java_gateway import JavaClass

    jvm, jss = _classic(spark, "enable" if add_jar else "explain")
    thread = jvm.java.lang.Thread.currentThread()
    if not _class_loadable(jvm, thread.getContextClassLoader()):
        # ADD JAR on another Python thread put the jar on the session's jar class loader, but
        # only that thread's context class loader points at it: use the session's loader here.
        shared_loader = None
        try:
            shared_loader = jss.sharedState().jarClassLoader()
        except Exception:
            pass
        if shared_loader is not None and _class_loadable(jvm, shared_loader):
            thread.setContextClassLoader(shared_loader)
        elif add_jar:
            jar = jar_path(spark=str(spark.version))
            escaped = jar.replace("\\", "\\\\").replace("'", "\\'")
            spark.sql(f"ADD JAR '{escaped}'")
            if not _class_loadable(jvm, thread.getContextClassLoader()):
                loader = jss.sharedState().jarClassLoader()
                if not _class_loadable(jvm, loader):
                    raise FastWindowError(
                        f"ADD JAR '{jar}' did not make {API_CLASS} loadable in this session's "
                        "JVM; start the session with fastwindow.configure(builder) instead.")
                thread.setContextClassLoader(loader)
        else:
            return None
    api = jvm.fastwindow.FastWindow
    if not isinstance(api, JavaClass):
        raise FastWindowError(f"py4j could not resolve {API_CLASS} although the class loads; "
                              "start the session with fastwindow.configure(builder) instead.")
    return api


# ----------------------------------------------------------------------------------------------
# public API
# ----------------------------------------------------------------------------------------------


def configure(builder: B) -> B:
    """Adds fastwindow to a ``SparkSession.Builder`` and returns the same builder.

    Appends the bundled jar to ``spark.jars`` and ``fastwindow.FastWindowExtensions`` to
    ``spark.sql.extensions`` (and fastwindow's explain generator to
    ``spark.sql.extendedExplainProviders``), keeping any values already set on the builder and
    never adding one twice::

        from pyspark.sql import SparkSession
        import fastwindow

        spark = fastwindow.configure(SparkSession.builder.master("local[4]")).getOrCreate()

    These confs are static: they only take effect when ``getOrCreate()`` starts a new
    SparkContext. For a session that already runs, use :func:`enable`.

    Raises:
        FastWindowError: when the package has no jar for the installed pyspark's Spark line,
            or the builder targets a remote Spark Connect server.
    """
    options = getattr(builder, "_options", None)
    if not isinstance(options, dict):
        options = {}
    remote = options.get("spark.remote")
    if remote is not None and str(remote).startswith("sc://"):
        raise _connect_error("configure", builder,
                             f"this builder targets a Spark Connect server (spark.remote={remote})")

    jar = check_spark_version(_pyspark_version(), "configure")

    builder.config(  # type: ignore[attr-defined]
        "spark.jars",
        _append_csv(options.get("spark.jars"), jar,
                    same=lambda a, b: _normalise_jar(a) == _normalise_jar(b)))
    builder.config(  # type: ignore[attr-defined]
        "spark.sql.extensions", _append_csv(options.get("spark.sql.extensions"), EXTENSIONS_CLASS))
    # Only when the jar has it: an unknown provider class would break every df.explain().
    if has_class(EXPLAIN_GENERATOR_CLASS, jar):
        builder.config(  # type: ignore[attr-defined]
            "spark.sql.extendedExplainProviders",
            _append_csv(options.get("spark.sql.extendedExplainProviders"),
                        EXPLAIN_GENERATOR_CLASS))

    try:
        from pyspark import SparkContext

        running = SparkContext._active_spark_context is not None
    except Exception:  # pragma: no cover - pyspark not importable
        running = False
    if running:
        warnings.warn(
            "fastwindow.configure(): a SparkContext is already running, so getOrCreate() will "
            "return a session without the fastwindow jar/extension (spark.jars and "
            "spark.sql.extensions are static). Call fastwindow.enable(spark) on it instead.",
            RuntimeWarning,
            stacklevel=2,
        )
    return builder


def enable(spark: Any) -> None:
    """Turns fastwindow on for a live classic SparkSession.

    Works on a session created without the jar too: the jar is added with ``ADD JAR`` (session
    class loader and executors), the planner strategy is installed into the session and
    ``spark.fastwindow.enabled`` is set to true. Calling it again does nothing more.

    Raises:
        FastWindowError: for a Spark Connect session (no local JVM; the message shows the
            server-side configuration to use instead), or when the package has no jar for
            the session's Spark line.
    """
    _classic(spark, "enable")
    check_spark_version(str(spark.version), "enable")
    api = _api(spark, add_jar=True)
    api.install(spark._jsparkSession)
    spark.conf.set(ENABLED_KEY, "true")


def disable(spark: Any) -> None:
    """Sets ``spark.fastwindow.enabled=false``: new queries of this session plan Spark's Window.

    Raises:
        FastWindowError: for a Spark Connect session (there, call
            ``spark.conf.set("spark.fastwindow.enabled", "false")`` directly).
    """
    _classic(spark, "disable")
    spark.conf.set(ENABLED_KEY, "false")


def is_enabled(spark: Any) -> bool:
    """Whether fastwindow plans this session's windows: installed and the conf is true.

    Raises:
        FastWindowError: for a Spark Connect session.
    """
    _, jss = _classic(spark, "is_enabled")
    api = _api(spark, add_jar=False)
    if api is None:
        return False
    if not bool(api.isInstalled(jss)):
        return False
    return str(spark.conf.get(ENABLED_KEY, "true")).strip().lower() == "true"


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


def _session_of(df: Any, what: str) -> Any:
    if getattr(df, "_jdf", None) is None:
        spark = getattr(df, "sparkSession", None)
        raise _connect_error(what, spark if spark is not None else df)
    spark = df.sparkSession
    _classic(spark, what)
    return spark


def _require_api(spark: Any, what: str) -> Any:
    api = _api(spark, add_jar=False)
    if api is None:
        raise FastWindowError(
            f"fastwindow.{what}(): the fastwindow jar is not loaded in this session; start it "
            "with fastwindow.configure(builder) or call fastwindow.enable(spark) first.")
    return api


def explain(df: Any) -> List[WindowReport]:
    """One :class:`WindowReport` per window operator in ``df``'s physical plan.

    Shows which operators fastwindow runs and, for the others, why Spark keeps them.
    """
    spark = _session_of(df, "explain")
    api = _require_api(spark, "explain")
    data = json.loads(api.explainJson(df._jdf))
    return [WindowReport.from_json(obj) for obj in _as_list(data)]


def explain_string(df: Any) -> str:
    """The JVM's human-readable report of ``df``'s window operators (``explain``'s text form)."""
    spark = _session_of(df, "explain_string")
    api = _require_api(spark, "explain_string")
    return str(api.explainString(df._jdf))


def _as_list(data: Any) -> Iterable[dict]:
    if isinstance(data, dict):  # tolerate {"windows": [...]}
        data = data.get("windows", [data])
    return [obj for obj in data if isinstance(obj, dict)]
