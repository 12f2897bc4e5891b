import java.io.File

import sbt.IO

import scala.sys.process._
import scala.util.Try

/**
 * Which Spark fastwindow is compiled and tested against, for each Spark line it is built for.
 *
 * fastwindow plugs into Spark internals (planner strategies, physical operators), which are not
 * binary-stable across Spark minor lines, so each line gets its own jar, compiled with that
 * line's shim folders against that line's Spark. The lines are the rows of
 * `scala-src/shims/spark-lines.tsv` (the table the Python build backend reads too).
 *
 * A line is built against one of two Sparks:
 *   - the installed one (pyspark's `jars/` dir, `$SPARK_HOME/jars` or FASTWINDOW_SPARK_JARS), when
 *     it is of that line and Scala version: always the case for the default line, and the only way
 *     for a line Maven Central does not serve (4.3);
 *   - otherwise the line's Spark release from Maven Central, as `Provided` dependencies (so tests
 *     of that line run on that Spark too).
 */
object SparkJars {

  /** One row of spark-lines.tsv. */
  final case class Line(line: String, scala: String, shims: Seq[String], maven: Option[(String, String)]) {
    /** "3.5_2.12": how a line is named on the command line and in FASTWINDOW_SPARK_LINE. */
    def id: String = s"${line}_$scala"
  }

  /** An installed Spark jars directory. */
  final case class Spark(dir: File, sparkVersion: String, scalaBinary: String, scalaVersion: Option[String]) {
    /** "4.3" for Spark 4.3.0: a jar is only compatible within one Spark minor line. */
    def line: String = sparkVersion.split('.').take(2).mkString(".")
    def jars: Seq[File] = Option(dir.listFiles()).toSeq.flatten.filter(_.getName.endsWith(".jar")).sortBy(_.getName)
  }

  /** What one build of the jar compiles against: a line, and the installed Spark if it is used. */
  final case class Target(line: Line, installed: Option[Spark]) {
    def sparkVersion: String = installed.map(_.sparkVersion).getOrElse(line.maven.get._1)
    def scalaVersion: String = installed.flatMap(_.scalaVersion).orElse(line.maven.map(_._2)).getOrElse("2.13.18")
    /** Maven Central Spark modules, for a line not built against the installed Spark. */
    def mavenSpark: Option[String] = if (installed.isEmpty) line.maven.map(_._1) else None
    def shimDirs(base: File): Seq[File] = line.shims.map(name => new File(base, s"scala-src/shims/$name/scala"))
  }

  def linesFile(base: File): File = new File(base, "scala-src/shims/spark-lines.tsv")

  /** The rows of spark-lines.tsv, in file order. */
  def lines(base: File): Seq[Line] =
    IO.readLines(linesFile(base)).map(_.trim).filter(l => l.nonEmpty && !l.startsWith("#")).map { row =>
      row.split("\\s+") match {
        case Array(line, scala, shims, maven) =>
          val release = maven.split('/') match {
            case Array(spark, scalac) => Some((spark, scalac))
            case _                    => None
          }
          Line(line, scala, shims.split(',').toSeq, release)
        case _ => fail(s"${linesFile(base)}: expected 4 fields (line scala shims maven): $row")
      }
    }

  /**
   * The line named `requested` ("3.5_2.12", "4.2", "4.2_2.13"), resolved to what it compiles
   * against; fails with the list of lines when it is unknown or cannot be built here.
   */
  def target(base: File, requested: String): Target = {
    val all = lines(base)
    val matching = all.filter(l => l.id == requested || l.line == requested)
    val line = matching match {
      case Seq(one) => one
      case Seq()    => fail(s"unknown Spark line '$requested'; the lines are ${all.map(_.id).mkString(", ")}")
      case several  => fail(s"Spark line '$requested' is ambiguous: say one of ${several.map(_.id).mkString(", ")}")
    }
    val usable = installed.toOption.filter(s => s.line == line.line && s.scalaBinary == line.scala)
    if (usable.isEmpty && line.maven.isEmpty)
      fail(s"Spark line ${line.id} is not on Maven Central, so it is built only against an installed " +
        s"Spark ${line.line} (pip install 'pyspark==${line.line}.*', or SPARK_HOME)" +
        installed.fold(why => s"; none found: $why", s => s"; found Spark ${s.sparkVersion} in ${s.dir}"))
    Target(line, usable)
  }

  /**
   * The line built when none is asked for: FASTWINDOW_SPARK_LINE (or -Dfastwindow.spark.line),
   * else the installed Spark's.
   */
  def defaultLine: String =
    sys.props.get("fastwindow.spark.line").orElse(sys.env.get("FASTWINDOW_SPARK_LINE")).map(_.trim)
      .filter(_.nonEmpty)
      .getOrElse(installed.fold(fail, s => s"${s.line}_${s.scalaBinary}"))

  private val SparkSqlJar = """spark-sql_(2\.1[23])-(\d+\.\d+\.\d+[^/]*)\.jar""".r
  private val ScalaLibJar = """scala-library-(2\.1[23]\.\d+)\.jar""".r

  /** Some(Spark) if `dir` holds a Spark (identified by spark-sql_<scala>-X.Y.Z.jar). */
  def inspect(dir: File): Option[Spark] = {
    val names = Option(dir.listFiles()).toSeq.flatten.map(_.getName)
    names.collectFirst { case SparkSqlJar(scala, v) => (scala, v) }.map { case (scala, sparkVersion) =>
      Spark(dir.getAbsoluteFile, sparkVersion, scala, names.collectFirst { case ScalaLibJar(v) => v })
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

  /**
   * The installed Spark, or a message saying what was tried and how to fix it. Lookup order
   * (first match wins): FASTWINDOW_SPARK_JARS (must be valid if set), $SPARK_HOME/jars, the jars/
   * dir of the pyspark importable by `python3`.
   */
  lazy val installed: Either[String, Spark] = {
    def bad(what: String, dir: File) = s"$what = $dir has no spark-sql_<scala>-<version>.jar"

    sys.env.get("FASTWINDOW_SPARK_JARS").filter(_.trim.nonEmpty) match {
      // An explicit override must be right: silently falling through would build against
      // some other Spark than the one asked for.
      case Some(path) =>
        val dir = new File(path)
        inspect(dir).toRight(bad("FASTWINDOW_SPARK_JARS", dir))

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
        fromSparkHome.left.flatMap(why1 => fromPyspark.left.map(why2 => Seq(why1, why2))).left.map { whys =>
          (Seq(
            "Cannot find the Spark jars fastwindow compiles against. Tried:",
            "  - FASTWINDOW_SPARK_JARS is not set"
          ) ++ whys.map("  - " + _) ++ Seq(
            "Fix one of:",
            "  * pip install pyspark   (its jars/ dir is used), or",
            "  * export SPARK_HOME=/path/to/spark, or",
            "  * export FASTWINDOW_SPARK_JARS=/path/to/dir/with/spark-jars, or",
            "  * export FASTWINDOW_SPARK_LINE=<line> to build a line served by Maven Central (e.g. 3.5_2.12)"
          )).mkString("\n")
        }
    }
  }

  // MessageOnlyException: sbt prints just the message, without a stack trace.
  private def fail(msg: String): Nothing = throw new sbt.internal.util.MessageOnlyException(msg)
}
