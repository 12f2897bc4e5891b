package fastwindow

import java.io.File

import scala.io.Source

import org.scalatest.funsuite.AnyFunSuite

/**
 * The packages are layers: each may use the ones below it, never one above. This keeps the
 * folders an architecture (a leaf model at the bottom, then columns, the ops interfaces, the
 * frame algorithms, kernels, generated code, the function registry, the operator, and planning,
 * explain and the public API on top) rather than labels.
 *
 * A file's package gives its layer (the root package's files are placed one by one: the config
 * object at the bottom, the API on top); every `fastwindow.<package>` it names, in an import or
 * in code, must be of its layer or below. Comments and string literals are ignored.
 */
class LayeringSuite extends AnyFunSuite {

  /** Bottom to top. */
  private val layers: Seq[String] = Seq(
    "fastwindow.FastWindowConf",
    "org.apache.spark.sql.fastwindow",
    "fastwindow.model",
    "fastwindow.columns",
    "fastwindow.ops",
    "fastwindow.frames",
    "fastwindow.kernels",
    "fastwindow.codegen",
    "fastwindow.functions",
    "fastwindow.exec",
    "fastwindow.planning",
    "fastwindow.explain",
    "fastwindow.FastWindow")  // FastWindow and FastWindowExtensions: the public API

  private def layerOf(name: String): Option[Int] =
    layers.zipWithIndex.filter { case (l, _) => name == l || name.startsWith(l + ".") ||
      (l == "fastwindow.FastWindow" && name.startsWith("fastwindow.FastWindow")) }
      .map(_._2).sorted.headOption

  private val root = new File("scala-src/main/scala")
  /** Per-Spark-line code (scala-src/shims/<folder>/scala): in Spark's package, the bottom layer. */
  private val shims = new File("scala-src/shims")
  private def allSources: Seq[File] = sources(root) ++ sources(shims)

  private def sources(dir: File): Seq[File] =
    Option(dir.listFiles()).toSeq.flatten.flatMap { f =>
      if (f.isDirectory) sources(f) else if (f.getName.endsWith(".scala")) Seq(f) else Nil
    }

  /** The code only: no comments, no string literals (log messages name classes too). */
  private def code(text: String): String =
    text.replaceAll("(?s)\"\"\".*?\"\"\"", "\"\"")
      .replaceAll("\"(?:[^\"\\\\\n]|\\\\.)*\"", "\"\"")
      .replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "")

  private val Package = """(?m)^package ([\w.]+)""".r
  private val Reference = """\b(fastwindow\.(?:[A-Z]\w*|[a-z]\w*))""".r

  test("sources are where this suite looks") {
    assert(root.isDirectory, s"${root.getAbsolutePath} is not the sources' directory")
    assert(sources(shims).nonEmpty, s"${shims.getAbsolutePath} has no shim sources")
  }

  test("no package uses a package of a higher layer") {
    val violations = for {
      file <- allSources
      text = code(Source.fromFile(file, "UTF-8").mkString)
      pkg <- Package.findFirstMatchIn(text).map(_.group(1)).toSeq
      own = layerOf(if (pkg == "fastwindow") s"fastwindow.${file.getName.stripSuffix(".scala")}"
        else pkg)
      used <- Reference.findAllMatchIn(text).map(_.group(1)).toSeq.distinct
      usedLayer <- layerOf(used)
      if own.exists(_ < usedLayer)
    } yield s"${file.getPath} (${layers(own.get)}) uses $used (${layers(usedLayer)})"
    assert(violations.isEmpty, violations.mkString("\n"))
  }

  test("every source file is in a known layer and under 400 lines") {
    for (file <- allSources) {
      val text = Source.fromFile(file, "UTF-8").mkString
      val pkg = Package.findFirstMatchIn(text).map(_.group(1)).getOrElse("")
      val name = if (pkg == "fastwindow") s"fastwindow.${file.getName.stripSuffix(".scala")}" else pkg
      assert(layerOf(name).isDefined, s"${file.getPath}: package $pkg has no layer")
      val lines = text.count(_ == '\n')
      assert(lines <= 400, s"${file.getPath} has $lines lines; split it")
    }
  }
}
