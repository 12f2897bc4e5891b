import java.io.File

import sbt.IO

import scala.sys.process._
import scala.util.Try

/**
 * Finds the Spark distribution fastwindow compiles and tests against.
 *
 * Why not a Maven dependency: fastwindow plugs into Spark internals (planner strategies,
 * physical operators), which are not binary-stable across Spark minor versions, so the jar must
 * be built against the exact Spark it will run in. That Spark (4.3.x) is the one installed with
 * pyspark, and it is not published on Maven Central, so we compile against its `jars/` folder.
 *
 * Lookup order (first match wins):
 *   1. env FASTWINDOW_SPARK_JARS   a directory of Spark jars (must be valid if set)
 *   2. $SPARK_HOME/jars
 *   3. <pyspark package dir>/jars of the pyspark importable by `python3`
 */
object SparkJars {

  /** What the build needs to know about a Spark jars directory. */
  final case class Spark(dir: File, sparkVersion: String, scalaVersion: Option[String]) {
    /** "4.3" for Spark 4.3.0: the jar is only compatible within one Spark minor line. */
    def binaryVersion: String = sparkVersion.split('.').take(2).mkString(".")
    def jars: Seq[File] = Option(dir.listFiles()).toSeq.flatten.filter(_.getName.endsWith(".jar")).sortBy(_.getName)

    /**
     * The shim source folders of this Spark's line, from scala-src/shims/spark-lines.tsv (the
     * table the Python build backend reads too).
     */
    def shimDirs(base: File): Seq[File] = {
      val table = new File(base, "scala-src/shims/spark-lines.tsv")
      val rows = IO.readLines(table).map(_.trim).filter(l => l.nonEmpty && !l.startsWith("#"))
      rows.map(_.split("\\s+")).collectFirst {
        case Array(line, "2.13", shims, _) if line == binaryVersion =>
          shims.split(',').toSeq.map(name => new File(base, s"scala-src/shims/$name/scala"))
      }.getOrElse(fail(s"Spark $sparkVersion: no Scala 2.13 line $binaryVersion in $table"))
    }
  }

  private val SparkSqlJar = """spark-sql_2\.13-(\d+\.\d+\.\d+[^/]*)\.jar""".r
  private val ScalaLibJar = """scala-library-(2\.13\.\d+)\.jar""".r

  /** Some(Spark) if `dir` holds a Scala 2.13 Spark (identified by spark-sql_2.13-X.Y.Z.jar). */
  def inspect(dir: File): Option[Spark] = {
    val names = Option(dir.listFiles()).toSeq.flatten.map(_.getName)
    names.collectFirst { case SparkSqlJar(v) => v }.map { sparkVersion =>
      Spark(dir.getAbsoluteFile, sparkVersion, names.collectFirst { case ScalaLibJar(v) => v })
    }
  }

  /** The pyspark package dir reported by `python3`, if python3 and pyspark are there. */
  private def pysparkDir(): Either[String, File] = {
    val cmd = Seq("python3", "-c", "import pyspark, os; print(os.path.dirname(pyspark.__file__))")
    val out = new StringBuilder
    val err = new StringBuilder
    Try(cmd ! ProcessLogger(l => out.append(l).append('\n'), l => err.append(l).append('\n')))
      .toEither.left.map(e => s"could not run python3 (${e.getMessage})")
      .flatMap { rc =>
        if (rc == 0) Right(new File(out.toString.trim))
        else Left(s"`python3 -c 'import pyspark'` failed: ${err.toString.trim.linesIterator.toSeq.lastOption.getOrElse(s"exit $rc")}")
      }
  }

  /** Locates Spark or throws with a message saying how to fix it. */
  def locate(): Spark = {
    def bad(what: String, dir: File) =
      s"$what = $dir has no spark-sql_2.13-<version>.jar (need a Spark 4.x built for Scala 2.13)"

    sys.env.get("FASTWINDOW_SPARK_JARS").filter(_.trim.nonEmpty) match {
      // An explicit override must be right: silently falling through would build against
      // some other Spark than the one asked for.
      case Some(path) =>
        val dir = new File(path)
        inspect(dir).getOrElse(fail(bad("FASTWINDOW_SPARK_JARS", dir)))

      case None =>
        val fromSparkHome: Either[String, Spark] =
          sys.env.get("SPARK_HOME").filter(_.trim.nonEmpty) match {
            case None       => Left("SPARK_HOME is not set")
            case Some(home) =>
              val dir = new File(home, "jars")
              inspect(dir).toRight(bad("$SPARK_HOME/jars", dir))
          }
        def fromPyspark: Either[String, Spark] = pysparkDir().flatMap { pkg =>
          val dir = new File(pkg, "jars")
          inspect(dir).toRight(bad("pyspark jars dir", dir))
        }
        fromSparkHome.left.flatMap(why1 => fromPyspark.left.map(why2 => Seq(why1, why2))) match {
          case Right(spark) => spark
          case Left(whys) =>
            fail(
              (Seq(
                "Cannot find the Spark jars fastwindow compiles against. Tried:",
                "  - FASTWINDOW_SPARK_JARS is not set"
              ) ++ whys.map("  - " + _) ++ Seq(
                "Fix one of:",
                "  * pip install pyspark   (the version fastwindow targets; its jars/ dir is used), or",
                "  * export SPARK_HOME=/path/to/spark-4.x (a Scala 2.13 build), or",
                "  * export FASTWINDOW_SPARK_JARS=/path/to/dir/with/spark-jars"
              )).mkString("\n")
            )
        }
    }
  }

  // MessageOnlyException: sbt prints just the message, without a stack trace.
  private def fail(msg: String): Nothing = throw new sbt.internal.util.MessageOnlyException(msg)
}
