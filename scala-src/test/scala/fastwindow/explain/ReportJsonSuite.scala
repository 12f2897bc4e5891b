package fastwindow.explain

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.scalatest.funsuite.AnyFunSuite

import fastwindow.functions.WindowSupport
import fastwindow.model.FallbackReason

/**
 * The JSON of the reports and of the support table, which Python parses (`fastwindow.explain`,
 * `python -m fastwindow support`): its layout (kept from before Jackson wrote it: a report per
 * line, `"key": value` pairs after `, `), and any string, control characters, quotes and
 * non-ASCII included, read back as it was.
 */
class ReportJsonSuite extends AnyFunSuite {

  private val mapper = new ObjectMapper()

  private val onSpark = WindowReport("Window", fastwindow = false, Nil, Seq("k"), Nil,
    Seq(FallbackReason(FallbackReason.NotInstalled, "not \"installed\"")))
  private val onFastwindow = WindowReport(
    "FastWindow",
    fastwindow = true,
    Seq("sum(v) OVER (PARTITION BY k)"),
    Seq("k"),
    Seq("o ASC NULLS FIRST"),
    Nil,
    Seq("numOutputRows" -> 10L, "peakMemory" -> 1234567890123L),
    Some("a note")
  )

  test("reports keep their layout: one per line, each on one line") {
    assert(WindowReport.toJson(Seq(onSpark, onFastwindow)) ==
      """[{"operator": "Window", "fastwindow": false, "windowExpressions": [], """ +
      """"partitionSpec": ["k"], "orderSpec": [], "reason": "not \"installed\"", "note": null, """ +
      """"reasons": [{"id": "not-installed", "message": "not \"installed\""}], "metrics": {}},""" +
      "\n" +
      """{"operator": "FastWindow", "fastwindow": true, "windowExpressions": """ +
      """["sum(v) OVER (PARTITION BY k)"], "partitionSpec": ["k"], "orderSpec": """ +
      """["o ASC NULLS FIRST"], "reason": null, "note": "a note", "reasons": [], "metrics": """ +
      """{"numOutputRows": 10, "peakMemory": 1234567890123}}]""")
    assert(WindowReport.toJson(Nil) == "[]")
  }

  test("any string reads back as it was") {
    val text = "quote \" backslash \\ slash / tab \t newline \n nul \u0000 \u001f del \u007f " +
      "é 漢 \u2028 \ud83d\ude00"
    val report = onSpark.copy(windowExpressions = Seq(text), note = Some(text),
      reasons = Seq(FallbackReason(text, text)), metrics = Seq(text -> -1L))
    val node = mapper.readTree(WindowReport.toJson(Seq(report))).get(0)
    assert(node.get("windowExpressions").get(0).asText == text)
    assert(node.get("note").asText == text)
    assert(node.get("reason").asText == text)
    assert(node.get("reasons").get(0).get("id").asText == text)
    assert(node.get("metrics").get(text).asLong == -1L)
  }

  test("the support table: one entry per line, each read back whole") {
    val json = WindowReport.supportJson
    val entries = WindowSupport.supportEntries
    assert(json.startsWith("[\n  {\"function\": ") && json.endsWith("}\n]"))
    assert(json.count(_ == '\n') == entries.size + 1)
    val nodes = mapper.readTree(json)
    assert(nodes.size == entries.size)
    for ((e, i) <- entries.zipWithIndex) {
      val node: JsonNode = nodes.get(i)
      assert(node.get("function").asText == e.function && node.get("kind").asText == e.kind &&
        node.get("inputs").asText == e.inputs)
      assert((0 until node.get("frames").size).map(node.get("frames").get(_).asText) == e.frames)
    }
  }
}
