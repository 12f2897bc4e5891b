"""Turning fastwindow on for a SparkSession, and asking it what it did.

Three ways to enable fastwindow, all equivalent once the session exists:

* before the session exists: ``fastwindow.configure(SparkSession.builder).getOrCreate()``;
* on a live classic session (also one created without the jar): ``fastwindow.enable(spark)``;
* outside Python: ``spark-submit --jars "$(python -m fastwindow jar)"
  --conf spark.sql.extensions=fastwindow.FastWindowExtensions app.py``.

Spark Connect sessions have no JVM on the client: fastwindow must be installed on the server.

The JVM side (class names, the Spark Connect error, the py4j handle) is in ``_jvm``, the report
type in ``_report``; their public names are importable from here too.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, List, TypeVar

from ._errors import FastWindowError
from ._jar import check_spark_version, has_class
from ._jvm import (
    API_CLASS,  # noqa: F401 (a name of this module before the split)
    ENABLED_KEY,
    EXPLAIN_GENERATOR_CLASS,
    EXTENSIONS_CLASS,
    _api,
    _classic,
    _connect_error,
    server_config_lines,
)
from ._report import WindowReport, _as_list

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
    if not callable(getattr(builder, "config", None)):
        raise FastWindowError(
            f"fastwindow.configure() takes a SparkSession.Builder (SparkSession.builder...), got "
            f"{type(builder).__name__}; for a session that already runs, use fastwindow.enable(spark).")
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


def _session_of(df: Any, what: str) -> Any:
    if getattr(df, "_jdf", None) is None:
        spark = getattr(df, "sparkSession", None)
        if spark is None:  # not a DataFrame of either kind
            got = "a SparkSession" if hasattr(df, "createDataFrame") else type(df).__name__
            raise FastWindowError(
                f"fastwindow.{what}() takes a DataFrame (e.g. spark.sql(\"...\")), got {got}.")
        raise _connect_error(what, spark)
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
