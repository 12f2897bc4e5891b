package fastwindow

import java.io.File

import scala.io.Source

import org.scalatest.funsuite.AnyFunSuite

/**
 * The packages are layers: each may use the ones below it, never one above. This keeps the
 * folders an architecture (configuration and a leaf model at the bottom, then columns, the ops
 * interfaces, the frame algorithms, kernels, generated code, the function registry, the helpers
 * the operators share, the operators, and planning, explain and the public API on top) rather
 * than labels.
 *
 * A layer may hold several packages, which are then independent: none uses another (the four
 * operators, each with its own per-task code, share only what is below them). A file's layer is
 * its package's, matched exactly (a sub-package is a package of its own and needs a layer of its
 * own); every `fastwindow` package it names, in an import or in code, must be its own, or of a
 * lower layer. Comments and string literals are ignored.
 *
 * Within a package, a file is one concept, named after it: the type the file is named after (with
 * its companion), the cases of a sealed type it declares, and private helpers no other file uses,
 * so that a type is found by its name. Files stay under 400 lines.
 */
class LayeringSuite extends AnyFunSuite {

  /** Bottom to top; the packages of one layer do not use each other. */
  private val layers: Seq[Seq[String]] = Seq(
    Seq("fastwindow.config"),
    Seq("org.apache.spark.sql.fastwindow.shims"),
    Seq("org.apache.spark.sql.fastwindow"),
    Seq("fastwindow.model"),
    Seq("fastwindow.columns"),
    Seq("fastwindow.ops"),
    Seq("fastwindow.frames"),
    Seq("fastwindow.kernels"),
    Seq("fastwindow.codegen"),
    Seq("fastwindow.functions"),
    Seq("fastwindow.exec.shared"),
    Seq("fastwindow.exec.acrosstasks"),
    Seq("fastwindow.exec.window", "fastwindow.exec.hashwindow", "fastwindow.exec.grouplimit",
      "fastwindow.exec.grouporder"),
    Seq("fastwindow.planning"),
    Seq("fastwindow.explain"),
    Seq("fastwindow")
  ) // FastWindow and FastWindowExtensions: the public API

  private val packages: Seq[String] = layers.flatten

  private def layerOf(pkg: String): Option[Int] =
    Some(layers.indexWhere(_.contains(pkg))).filter(_ >= 0)

  /**
   * The package a qualified name in code refers to: the longest known package it starts with,
   * provided what follows is a class or object (capitalised) or nothing; None for a name in a
   * package of no layer (`fastwindow.nowhere.X`, which does not start with a known package
   * followed by a class).
   */
  private def packageOf(name: String): Option[String] =
    packages.filter(p => name == p || name.startsWith(p + ".")).sortBy(-_.length).headOption
      .filter { p => name == p || name.charAt(p.length + 1).isUpper }

  private val root = new File("scala-src/main/scala")

  /** Per-Spark-line code (scala-src/shims/<folder>/scala). */
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

  /**
   * A name in one of fastwindow's packages, from its first segment on (not the tail of another
   * name, such as `r.fastwindow`), and whether a `.{` import selector follows it.
   */
  private val Name = """(?<![\w.])((?:org\.apache\.spark\.sql\.)?fastwindow(?:\.\w+)*)(\.\{)?""".r

  /**
   * The qualified names `code` uses: `a.b.C`, `a.b` of `import a.b.{C, D}`, and `a.b` of
   * `import a.b._`; a lone identifier `fastwindow` or a package clause names nothing.
   */
  private def references(code: String): Seq[String] =
    Name.findAllMatchIn(code).toSeq.flatMap { m =>
      val name = m.group(1)
      if (m.group(2) != null || name.endsWith("._")) Some(name.stripSuffix("._")) // selectors
      else if (name.endsWith("fastwindow")) None // the identifier alone, or a package clause
      else Some(name)
    }.distinct

  private def packageOfFile(text: String): String =
    Package.findFirstMatchIn(text).map(_.group(1)).getOrElse("")

  test("sources are where this suite looks, and every package of the layers has some") {
    assert(root.isDirectory, s"${root.getAbsolutePath} is not the sources' directory")
    assert(sources(shims).nonEmpty, s"${shims.getAbsolutePath} has no shim sources")
    val present = allSources.map(f => packageOfFile(Source.fromFile(f, "UTF-8").mkString)).toSet
    assert(packages.filterNot(present).isEmpty, "layers name packages without sources")
  }

  test("no package uses a package of a higher layer, another of its layer, or one of no layer") {
    val violations = for {
      file <- allSources
      text = code(Source.fromFile(file, "UTF-8").mkString)
      pkg = packageOfFile(text)
      own <- layerOf(pkg).toSeq
      used <- references(text)
      problem <- packageOf(used) match {
        case None => Some(s"names $used, in a package of no layer")
        case Some(p) if layerOf(p).exists(_ > own) => Some(s"uses $used, of a higher layer")
        case Some(p) if p != pkg && layerOf(p).contains(own) =>
          Some(s"uses $used, of its own layer")
        case _ => None
      }
    } yield s"${file.getPath} ($pkg) $problem"
    assert(violations.isEmpty, violations.mkString("\n"))
  }

  /**
   * A top-level class, trait or object: its modifiers, its name, and its header up to its body
   * (where its parents are named). Sources are formatted, so top level is column 0.
   */
  private val TopLevel = ("(?m)^((?:(?:private|protected)(?:\\[\\w+\\])?\\s+|" +
    "(?:final|sealed|abstract|implicit|case)\\s+)*)(?:class|trait|object)\\s+(\\w+)" +
    "([^{]*?)(?=\\{|\n\n|\n(?! )|\\z)").r

  private final class Definition(val name: String, val isPrivate: Boolean,
      val isSealed: Boolean, val parents: Seq[String])

  private def definitions(code: String): Seq[Definition] =
    TopLevel.findAllMatchIn(code).map { m =>
      val modifiers = m.group(1)
      val parents = """\b(?:extends|with)\s+(\w+)""".r.findAllMatchIn(m.group(3)).map(_.group(1))
      new Definition(m.group(2), modifiers.contains("private"), modifiers.contains("sealed"),
        parents.toSeq)
    }.toSeq

  test("every source file holds one public concept named after it") {
    // A file holds the type it is named after (with its companion), the cases of a sealed type it
    // declares, and private helpers no other file uses; any other type has a file of its own.
    val texts = allSources.map(f => f -> code(Source.fromFile(f, "UTF-8").mkString))
    val violations = for {
      (file, text) <- texts
      base = file.getName.stripSuffix(".scala")
      defs = definitions(text)
      sealedHere = defs.filter(_.isSealed).map(_.name).toSet
      strays = defs.filterNot { d =>
        d.name == base || d.parents.exists(sealedHere) ||
        d.isPrivate && !texts.exists { case (other, t) =>
          other != file && s"\\b${d.name}\\b".r.findFirstIn(t).isDefined
        }
      }.map(_.name).distinct
      if strays.nonEmpty
    } yield s"${file.getPath} holds ${strays.mkString(", ")} besides $base"
    assert(violations.isEmpty, violations.mkString("\n"))
  }

  test("every source file is in a known layer and under 400 lines") {
    for (file <- allSources) {
      val text = Source.fromFile(file, "UTF-8").mkString
      val pkg = packageOfFile(text)
      assert(layerOf(pkg).isDefined, s"${file.getPath}: package $pkg has no layer")
      val lines = text.count(_ == '\n')
      assert(lines <= 400, s"${file.getPath} has $lines lines; split it")
    }
  }
}
