package fastwindow.exec

import java.io.ByteArrayOutputStream
import java.lang.reflect.Constructor
import java.util.{Collections, WeakHashMap}

import scala.util.control.NonFatal

import org.slf4j.LoggerFactory

import fastwindow.columns.{Column, ColumnLayout}
import fastwindow.model.WindowPlan
import fastwindow.ops.OpsSet

/**
 * Gives each generated operator its own copy of the frame algorithms, so the JIT compiles them
 * for that operator's ops alone.
 *
 * The algorithms (`fastwindow.frames`, `fastwindow.kernels`, the families that build kernels,
 * [[KernelEvaluator]]) are written once, in Scala, and call the ops of the query through abstract
 * classes. The JVM profiles each call site of a class once for the whole JVM: after an executor
 * has run a few different window queries, a call such as the two stacks' `partial.merge` has seen
 * many ops classes and is no longer inlined, which cost up to 2.5x per row in measurements. So,
 * as Trino does for its own generic operators, each generated operator loads the same class bytes
 * again in a class loader of its own: its copy sees one ops class at each call site, and the JIT
 * inlines the generated ops into the algorithm as if both had been generated together. The copy
 * is made once per generated class (hence per distinct operator) and JVM, and is dropped with it.
 *
 * What crosses between the copies and the rest is loaded once, by the parent loader: the plan
 * (`fastwindow.model`, and the families' spec classes, named `...Spec`), columns, ops, and the
 * [[WindowEvaluator]] class through which the operator sees its evaluator. The interpreted
 * evaluator uses the shared classes; so does a generated one if copying fails (logged once).
 */
object AlgorithmIsolation {
  private val log = LoggerFactory.getLogger(getClass)

  private val IsolatedPackages = Seq("fastwindow.frames.", "fastwindow.kernels.",
    "fastwindow.functions.")
  private val Evaluator = classOf[KernelEvaluator].getName

  /** Whether the class named `name` is copied per operator (see above). */
  def isolated(name: String): Boolean =
    name == Evaluator || (IsolatedPackages.exists(name.startsWith) && !isSpec(name))

  /** The families' spec classes are part of the plan: shared. */
  private def isSpec(name: String): Boolean = {
    val simple = name.substring(name.lastIndexOf('.') + 1).stripSuffix("$")
    simple.endsWith("Spec")
  }

  /** Copies by the generated class they serve; weak, so a copy goes when its operator's class does. */
  private val copies = Collections.synchronizedMap(new WeakHashMap[AnyRef, Copy]())
  @volatile private var warned = false

  /**
   * A new evaluator for the generated class `owner`, with this operator's own copy of the
   * algorithms; the shared classes if the copy cannot be made.
   */
  def newEvaluator(
      owner: AnyRef,
      plan: WindowPlan,
      layout: ColumnLayout,
      columns: Array[Column],
      ops: OpsSet): WindowEvaluator =
    try {
      copies.computeIfAbsent(owner, _ => new Copy).newEvaluator(plan, layout, columns, ops)
    } catch {
      case e @ (NonFatal(_) | _: LinkageError) =>
        if (!warned) {
          warned = true
          log.warn("fastwindow: could not give a window operator its own copy of the frame " +
            "algorithms; it uses the shared ones (same results, maybe slower).", e)
        }
        new KernelEvaluator(plan, layout, columns, ops, generated = true)
    }

  /** One operator's copy of the algorithm classes. */
  private final class Copy {
    private val loader = new IsolatingLoader(classOf[KernelEvaluator].getClassLoader)
    private val constructor: Constructor[_] = loader.loadClass(Evaluator).getConstructor(
      classOf[WindowPlan], classOf[ColumnLayout], classOf[Array[Column]], classOf[OpsSet],
      java.lang.Boolean.TYPE)

    def newEvaluator(
        plan: WindowPlan,
        layout: ColumnLayout,
        columns: Array[Column],
        ops: OpsSet): WindowEvaluator =
      constructor.newInstance(plan, layout, columns, ops, java.lang.Boolean.TRUE)
        .asInstanceOf[WindowEvaluator]
  }

  /** Defines the isolated classes itself, from the parent's class files; delegates the rest. */
  private final class IsolatingLoader(parent: ClassLoader) extends ClassLoader(parent) {
    override def loadClass(name: String, resolve: Boolean): Class[_] =
      if (!isolated(name)) super.loadClass(name, resolve)
      else getClassLoadingLock(name).synchronized {
        var loaded: Class[_] = findLoadedClass(name)
        if (loaded == null) {
          val bytes = classBytes(name)
          loaded = defineClass(name, bytes, 0, bytes.length,
            classOf[KernelEvaluator].getProtectionDomain)
        }
        if (resolve) resolveClass(loaded)
        loaded
      }

    private def classBytes(name: String): Array[Byte] = {
      val path = name.replace('.', '/') + ".class"
      val in = Option(getParent.getResourceAsStream(path)).getOrElse(
        throw new ClassNotFoundException(s"$name: no $path next to fastwindow's classes"))
      try {
        val out = new ByteArrayOutputStream()
        in.transferTo(out)
        out.toByteArray
      } finally in.close()
    }
  }
}
