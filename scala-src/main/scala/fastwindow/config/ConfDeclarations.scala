package fastwindow.config

import scala.collection.mutable.ArrayBuffer

/** A group of configuration keys, each registered, in declaration order, by being declared. */
private[config] abstract class ConfDeclarations {
  private val declared = ArrayBuffer.empty[ConfEntry[_]]

  /** The keys declared here, in declaration (documentation) order. */
  protected def declaredEntries: Seq[ConfEntry[_]] = declared.toSeq

  protected def entry[T](key: String, default: T, doc: String, parse: (String, String) => T,
      internal: Boolean = false): ConfEntry[T] = {
    val e = new ConfEntry(key, default, doc, parse, internal)
    declared += e
    e
  }
}
