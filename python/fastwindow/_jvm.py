"""Reaching fastwindow in a classic session's JVM, and the error for a session without one.

The names of fastwindow's JVM classes and of its switch, the confs a Spark Connect server needs
(and the error that shows them to a Connect client), and the py4j handle on
``fastwindow.FastWindow`` (adding the jar to a live session that lacks it).
"""

from __future__ import annotations

import sys
from typing import Any, List, Optional, Tuple

from ._errors import FastWindowError
from ._jar import jar_path
from ._version import __version__

ENABLED_KEY = "spark.fastwindow.enabled"
EXTENSIONS_CLASS = "fastwindow.FastWindowExtensions"
EXPLAIN_GENERATOR_CLASS = "fastwindow.explain.FastWindowExplainGenerator"
API_CLASS = "fastwindow.FastWindow"


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
