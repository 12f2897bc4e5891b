package fastwindow.exec.window

import java.io.ByteArrayOutputStream
import java.lang.reflect.Constructor
import java.util.{Collections, WeakHashMap}
import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.slf4j.LoggerFactory

import fastwindow.columns.{Column, ColumnLayout}
import fastwindow.frames.PeerGroups
import fastwindow.functions.WindowSupport
import fastwindow.kernels.Kernel
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
 * many ops classes and is no longer inlined (the cost: docs/how-it-works.md). So,
 * as Trino does for its own generic operators, each generated operator loads the same class bytes
 * again in a class loader of its own: its copy sees one ops class at each call site, and the JIT
 * inlines the generated ops into the algorithm as if both had been generated together. The copy
 * is made once per generated class (hence per distinct operator) and JVM, and is dropped with it.
 *
 * Within an operator, each window function after the first gets a copy of its own too, nested in
 * the operator's ([[functionLoader]]): three whole-partition aggregates (`avg`, `max`, `count`)
 * or four moving ones run the same kernel class with different ops, and a call site shared by
 * three or more ops classes is a virtual call the JIT does not inline. The evaluator, its peer
 * groups and the [[fastwindow.kernels.Kernel]] base class stay the operator's, since they cross
 * between the function copies.
 *
 * What crosses between the copies and the rest is loaded once, by the parent loader: the plan
 * (`fastwindow.model`, and the families' spec classes, registered by the families themselves:
 * [[sharedClasses]]), columns, ops, and the [[WindowEvaluator]] class through which the operator
 * sees its evaluator. The interpreted evaluator uses the shared classes; so does a generated one
 * if copying fails (logged once).
 */
object AlgorithmIsolation {
  private val log = LoggerFactory.getLogger(getClass)

  private val IsolatedPackages = Seq("fastwindow.frames.", "fastwindow.kernels.",
    "fastwindow.functions.")
  private val Evaluator = classOf[KernelEvaluator].getName

  /**
   * The classes of the isolated packages that are shared all the same, because instances of them
   * cross into the copies: each family's spec class
   * ([[fastwindow.functions.FunctionFamily.specClass]]), whose instances the plan holds (built
   * once, by the shared classes: a copy of the class would not know them, and the family's copy
   * would not own them), and its companion object, kept with it. Registered by the families, so
   * that a class is shared because its family says so, never because of its name.
   */
  val sharedClasses: Set[String] =
    WindowSupport.families.map(_.specClass.getName).flatMap(c => Seq(c, c + "$")).toSet

  /** Whether the class named `name` is copied per operator (see above). */
  def isolated(name: String): Boolean =
    name == Evaluator || (IsolatedPackages.exists(name.startsWith) && !sharedClasses(name))

  /** What a function's copy shares with its operator's: what the evaluator and kernels pass. */
  private val OperatorWide = Set(Evaluator, classOf[PeerGroups].getName, classOf[Kernel].getName)

  /** Whether the class named `name` is copied per window function (see above). */
  private def isolatedPerFunction(name: String): Boolean =
    isolated(name) && !OperatorWide(name)

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
        new KernelEvaluator(plan, layout, columns, ops, generated = true, _ => null, null)
    }

  /** One operator's copy of the algorithm classes, and its functions' copies. */
  private final class Copy {
    private val loader = new IsolatingLoader(classOf[KernelEvaluator].getClassLoader, isolated)
    private val constructor: Constructor[_] = loader.loadClass(Evaluator).getConstructor(
      classOf[WindowPlan],
      classOf[ColumnLayout],
      classOf[Array[Column]],
      classOf[OpsSet],
      java.lang.Boolean.TYPE,
      classOf[Int => ClassLoader],
      classOf[Array[String]]
    )

    /** Function k's loader (k >= 1; the first function uses the operator's copy). */
    private val functionLoaders = new ConcurrentHashMap[Int, ClassLoader]()

    private def functionLoader(k: Int): ClassLoader =
      if (k == 0) null
      else functionLoaders.computeIfAbsent(k, _ => new IsolatingLoader(loader, isolatedPerFunction))

    def newEvaluator(
        plan: WindowPlan,
        layout: ColumnLayout,
        columns: Array[Column],
        ops: OpsSet): WindowEvaluator =
      constructor.newInstance(plan, layout, columns, ops, java.lang.Boolean.TRUE,
        (k: Int) => functionLoader(k), familyNames(plan)).asInstanceOf[WindowEvaluator]
  }

  /** The class of each function's family object, by which a copy builds the function's kernel. */
  private def familyNames(plan: WindowPlan): Array[String] =
    plan.functions.map(WindowSupport.familyOf(_).getClass.getName).toArray

  /** Class files of the isolated classes, read once from fastwindow's jar for every copy. */
  private val classFiles = new ConcurrentHashMap[String, Array[Byte]]()

  /** Defines the classes `isolate` names itself, from the parent's class files; delegates the rest. */
  private[window] final class IsolatingLoader(parent: ClassLoader, isolate: String => Boolean)
    extends ClassLoader(parent) {

    /** The classes this copy defined (what it cost: tests keep it to the algorithms). */
    private[window] val defined = new java.util.concurrent.ConcurrentLinkedQueue[String]()

    override def loadClass(name: String, resolve: Boolean): Class[_] =
      if (!isolate(name)) super.loadClass(name, resolve)
      else getClassLoadingLock(name).synchronized {
        var loaded: Class[_] = findLoadedClass(name)
        if (loaded == null) {
          val bytes = classFiles.computeIfAbsent(name, _ => classFile(name))
          loaded = defineClass(name, bytes, 0, bytes.length,
            classOf[KernelEvaluator].getProtectionDomain)
          defined.add(name)
        }
        if (resolve) resolveClass(loaded)
        loaded
      }
  }

  private def classFile(name: String): Array[Byte] = {
    val path = name.replace('.', '/') + ".class"
    val in = Option(classOf[KernelEvaluator].getClassLoader.getResourceAsStream(path)).getOrElse(
      throw new ClassNotFoundException(s"$name: no $path next to fastwindow's classes"))
    try {
      val out = new ByteArrayOutputStream()
      in.transferTo(out)
      out.toByteArray
    } finally in.close()
  }
}
