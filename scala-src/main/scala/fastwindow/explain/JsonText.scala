package fastwindow.explain

import java.io.StringWriter

import com.fasterxml.jackson.core.{JsonFactory, JsonGenerator}
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter

/**
 * The JSON fastwindow shares with Python (the reports of `fastwindow.explain`, the support table
 * of `python -m fastwindow support --json`), written by Jackson's streaming generator: Spark
 * writes its own JSON with Jackson, so it is on the classpath of every Spark line, and strings are
 * escaped by a JSON library, not by hand, without a dependency of fastwindow's own.
 *
 * The text keeps the layout it always had, readable and stable for diffs: the elements of the
 * outer array as its [[JsonText.Layout]] says (one per line), and each element on one line, as
 * `{"key": value, ...}` with arrays as `["a", "b"]`.
 */
private[explain] object JsonText {

  /** Where the outer array's elements go: `first` after `[`, `between` them, `last` before `]`. */
  final case class Layout(first: String, between: String, last: String)

  /** `[{...},\n{...}]` */
  val OnePerLine: Layout = Layout("", ",\n", "")

  /** `[\n  {...},\n  {...}\n]` */
  val OnePerIndentedLine: Layout = Layout("\n  ", ",\n  ", "\n")

  private val factory = new JsonFactory()

  /** A JSON array of `items`, each written by `write`, laid out by `layout`. */
  def array[T](items: Seq[T], layout: Layout)(write: (JsonGenerator, T) => Unit): String = {
    val text = new StringWriter
    val generator = factory.createGenerator(text)
    generator.setPrettyPrinter(new Printer(layout))
    generator.writeStartArray()
    items.foreach(write(generator, _))
    generator.writeEndArray()
    generator.close()
    text.toString
  }

  /** Field `name`: an array of `values`. */
  def strings(generator: JsonGenerator, name: String, values: Seq[String]): Unit = {
    generator.writeArrayFieldStart(name)
    values.foreach(v => generator.writeString(v))
    generator.writeEndArray()
  }

  /** Field `name`: `value`, or null. */
  def optional(generator: JsonGenerator, name: String, value: Option[String]): Unit =
    value match {
      case Some(v) => generator.writeStringField(name, v)
      case None => generator.writeNullField(name)
    }

  /**
   * The separators: the outer array's by its layout, the others `, ` and `: ` (where Jackson's
   * minimal printer writes `,` and `:` alone).
   */
  private final class Printer(layout: Layout) extends MinimalPrettyPrinter {

    /** Whether the array being written is the outer one (the generator is inside it). */
    private def outer(generator: JsonGenerator): Boolean =
      generator.getOutputContext.getParent.inRoot()

    override def writeObjectFieldValueSeparator(generator: JsonGenerator): Unit =
      generator.writeRaw(": ")
    override def writeObjectEntrySeparator(generator: JsonGenerator): Unit =
      generator.writeRaw(", ")
    override def writeStartArray(generator: JsonGenerator): Unit =
      generator.writeRaw(if (outer(generator)) "[" + layout.first else "[")
    override def writeArrayValueSeparator(generator: JsonGenerator): Unit =
      generator.writeRaw(if (outer(generator)) layout.between else ", ")
    override def writeEndArray(generator: JsonGenerator, values: Int): Unit =
      generator.writeRaw(if (outer(generator)) layout.last + "]" else "]")
  }
}
