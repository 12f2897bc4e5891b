package fastwindow.config

/** Codegen modes, named after Spark's `spark.sql.codegen.factoryMode`. */
object CodegenMode {

  /** Generate code; on a compile error log it and use the interpreted twin. */
  val Fallback = "FALLBACK"

  /** Generate code; a compile error fails the query (used by tests). */
  val CodegenOnly = "CODEGEN_ONLY"

  /** Always use the interpreted twin. */
  val NoCodegen = "NO_CODEGEN"

  /**
   * For fastwindow's tests: each task runs on both, generated code (failing on compile errors)
   * and the interpreted twin, over the same rows, and fails unless they agree
   * (`fastwindow.exec.window.TwinCheck`). Holds each task's rows in memory.
   */
  val Verify = "VERIFY"
  val all: Seq[String] = Seq(Fallback, CodegenOnly, NoCodegen, Verify)
}
