package fastwindow

import java.util.Properties

import org.scalatest.funsuite.AnyFunSuite

/**
 * Guards the build itself (build.sbt), not fastwindow's features: the generated
 * `fastwindow-build.properties` must be on the classpath and describe the Spark we actually
 * compiled and run against. Reads the resource directly so it does not depend on the main
 * sources.
 */
class BuildSmokeSuite extends AnyFunSuite {

  private def buildProperties: Properties = {
    val in = getClass.getResourceAsStream("/fastwindow-build.properties")
    assert(in != null, "fastwindow-build.properties is not on the classpath (resourceGenerators?)")
    val props = new Properties()
    try props.load(in)
    finally in.close()
    props
  }

  private def majorMinor(v: String): String = v.split('.').take(2).mkString(".")

  test("fastwindow-build.properties names the Spark on the classpath") {
    val props = buildProperties
    val builtFor = Option(props.getProperty("spark.version")).getOrElse("").trim
    assert(builtFor.nonEmpty, "spark.version is missing or empty")
    assert(majorMinor(builtFor) == majorMinor(org.apache.spark.SPARK_VERSION),
      s"built for Spark $builtFor but running on ${org.apache.spark.SPARK_VERSION}")
  }

  test("fastwindow-build.properties has version and scala.binary.version") {
    val props = buildProperties
    assert(Option(props.getProperty("version")).exists(_.trim.nonEmpty), "version is missing")
    assert(props.getProperty("scala.binary.version") == scala.util.Properties.versionNumberString
      .split('.').take(2).mkString("."))
  }
}
