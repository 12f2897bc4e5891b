"""fastwindow: fast window functions for Spark SQL.

The package bundles the fastwindow Spark extension (a Scala 2.13 jar compiled against the pyspark
it was installed with) and helpers to enable it::

    from pyspark.sql import SparkSession
    import fastwindow

    spark = fastwindow.configure(SparkSession.builder).getOrCreate()   # a new session
    fastwindow.enable(spark)                                           # or a live one
    for report in fastwindow.explain(df):                              # who runs each window
        print(report)

From the shell: ``spark-submit --jars "$(python -m fastwindow jar)" --conf
spark.sql.extensions=fastwindow.FastWindowExtensions app.py``; ``python -m fastwindow --help``
lists the other commands. Spark Connect clients have no JVM: install fastwindow on the server.

Importing this package does not import pyspark.
"""

from ._errors import FastWindowError
from ._jar import build_info, built_for_spark, bundled_jars, jar_path
from ._session import (
    ENABLED_KEY,
    EXTENSIONS_CLASS,
    WindowReport,
    configure,
    disable,
    enable,
    explain,
    explain_string,
    is_enabled,
)
from ._version import __version__

__all__ = [
    "__version__",
    "FastWindowError",
    "WindowReport",
    "jar_path",
    "bundled_jars",
    "build_info",
    "built_for_spark",
    "configure",
    "enable",
    "disable",
    "is_enabled",
    "explain",
    "explain_string",
    "ENABLED_KEY",
    "EXTENSIONS_CLASS",
]
