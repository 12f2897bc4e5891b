package fastwindow.exec.window

import java.io.File
import java.util.jar.JarFile

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.catalyst.expressions.aggregate.Count
import org.apache.spark.sql.types.IntegerType
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.WindowTestKit._
import fastwindow.functions.WindowSupport
import fastwindow.model.FunctionSpec

/**
 * What [[AlgorithmIsolation]] shares between an operator's copy of the algorithm classes and the
 * rest is what the families register, and only that. A spec class copied by mistake costs no
 * wrong result here, only an error or a slower query, so these checks stand in for a symptom
 * that would be hard to see: every family's spec class is shared and the family copied; no other
 * class of the copied packages is shared (not because of its name, as the classes named `...Spec`
 * once were); every spec class of those packages is registered; and what a spec holds is not of
 * a copied class (it would cross with it).
 */
class AlgorithmIsolationSuite extends AnyFunSuite {
  import AlgorithmIsolation.{isolated, sharedClasses}

  private val CopiedPackages = Seq("fastwindow/frames/", "fastwindow/kernels/",
    "fastwindow/functions/")

  /** Every class of the copied packages, by name, from where fastwindow's classes are. */
  private lazy val copiedPackageClasses: Seq[String] = {
    val location = new File(
      classOf[KernelEvaluator].getProtectionDomain.getCodeSource.getLocation.toURI)
    val paths = ArrayBuffer.empty[String]
    if (location.isDirectory) {
      def walk(dir: File, prefix: String): Unit = Option(dir.listFiles()).toSeq.flatten.foreach {
        f => if (f.isDirectory) walk(f, prefix + f.getName + "/") else paths += prefix + f.getName
      }
      walk(location, "")
    } else {
      val jar = new JarFile(location)
      try {
        val entries = jar.entries()
        while (entries.hasMoreElements) paths += entries.nextElement().getName
      } finally jar.close()
    }
    paths.filter(p => p.endsWith(".class") && CopiedPackages.exists(p.startsWith))
      .map(_.stripSuffix(".class").replace('/', '.')).sorted.toSeq
  }

  private def load(name: String): Class[_] =
    Class.forName(name, false, classOf[KernelEvaluator].getClassLoader)

  test("each family's spec class is shared, and the family is copied") {
    assert(WindowSupport.families.nonEmpty)
    for (family <- WindowSupport.families) {
      val spec = family.specClass.getName
      assert(!isolated(spec), s"$spec (of ${family.kind}) would be copied")
      assert(isolated(family.getClass.getName), s"${family.getClass.getName} would be shared")
    }
  }

  test("no class of the copied packages is shared unless a family registers it") {
    assert(copiedPackageClasses.exists(_.startsWith("fastwindow.kernels.")),
      s"no kernel classes found next to ${classOf[KernelEvaluator].getName}")
    val shared = copiedPackageClasses.filterNot(isolated)
    assert(shared.nonEmpty && shared.forall(sharedClasses), shared.filterNot(sharedClasses))
    // A name is no reason: a class named like a spec, but registered by no family, is copied.
    assert(isolated("fastwindow.functions.UnregisteredSpec"))
  }

  test("every spec class of the copied packages is registered, and holds no copied class") {
    val specs = copiedPackageClasses.map(load).filter(classOf[FunctionSpec].isAssignableFrom)
    assert(specs.size >= WindowSupport.families.size)
    for (spec <- specs) {
      assert(!isolated(spec.getName), s"${spec.getName} is a FunctionSpec no family registers")
      // Fields only (type arguments are erased: a Seq of a copied class would not show).
      for (field <- spec.getDeclaredFields) {
        var t: Class[_] = field.getType
        while (t.isArray) t = t.getComponentType
        assert(!isolated(t.getName), s"${spec.getName}.${field.getName} is of a copied class")
      }
    }
  }

  test("a generated evaluator's copy loads the shared spec classes and its own families") {
    val k = attr("k", IntegerType)
    val layout = layoutOf(Seq(win(agg(Count(Literal(1))), Seq(asc(k)), wholeRows)), Seq(asc(k)),
      Seq(k))
    val evaluator = Generated.create(layout)
    val copy = evaluator.getClass.getClassLoader
    assert(evaluator.getClass.getName == classOf[KernelEvaluator].getName)
    assert(copy != classOf[KernelEvaluator].getClassLoader, "the evaluator is not a copy")
    for (family <- WindowSupport.families) {
      assert(copy.loadClass(family.specClass.getName) eq family.specClass)
      assert(!(copy.loadClass(family.getClass.getName) eq family.getClass))
    }
  }
}
