// sbt build for fastwindow, a Spark SQL extension.
//
// Run it with the wrapper, which needs only Java 17 and Maven Central:
//   bash .ci/sbt compile test package
// The jar lands in target/spark<line>_<scala>/scala-<scala>/fastwindow-spark<line>_<scala>-<version>.jar.
//
// One jar per Spark line (the rows of scala-src/shims/spark-lines.tsv). The line built is the
// installed Spark's (pyspark's jars/ dir, $SPARK_HOME/jars, FASTWINDOW_SPARK_JARS), or the one
// named by FASTWINDOW_SPARK_LINE / `set ThisBuild / sparkLine := "3.5_2.12"`; a line other than
// the installed Spark's compiles and tests against its Spark release from Maven Central.
// Every line, one after the other (the same jars the wheel carries):
//   bash .ci/sbt "forEachLine package"      (or "forEachLine test")
// See project/SparkJars.scala for why Spark is not a plain dependency.

lazy val sparkLine = settingKey[String](
  "Spark line the jar is built for: <line> or <line>_<scala> of scala-src/shims/spark-lines.tsv")
lazy val sparkTarget = settingKey[SparkJars.Target]("What the chosen Spark line compiles against")

ThisBuild / sparkLine := SparkJars.defaultLine
ThisBuild / sparkTarget := SparkJars.target((ThisBuild / baseDirectory).value, (ThisBuild / sparkLine).value)

/** Spark's modules from Maven Central for a line not built against the installed Spark. */
def mavenSpark(target: SparkJars.Target, config: Configuration): Seq[ModuleID] =
  target.mavenSpark.toSeq.flatMap { release =>
    Seq("core", "catalyst", "sql").map(module => "org.apache.spark" %% s"spark-$module" % release % config)
  }

/** The installed Spark's jars, when the chosen line is built against it. */
def installedSpark(target: SparkJars.Target): Seq[Attributed[File]] =
  Attributed.blankSeq(target.installed.toSeq.flatMap(_.jars))

/** ScalaTest without its scala-xml: Spark's jars carry a newer, binary-compatible one. */
def scalatest(artifact: String, version: String, scalaBinary: String): ModuleID =
  ("org.scalatest" %% artifact % version % Test).exclude("org.scala-lang.modules", s"scala-xml_$scalaBinary")

// Runs a command for every line this machine can build (each line of spark-lines.tsv served by
// Maven Central, plus the installed Spark's), then goes back to the line that was chosen.
commands += Command.single("forEachLine") { (state, command) =>
  val extracted = Project.extract(state)
  val base = extracted.get(ThisBuild / baseDirectory)
  val chosen = extracted.get(ThisBuild / sparkLine)
  val installed = SparkJars.installed.toOption.map(s => s"${s.line}_${s.scalaBinary}")
  val ids = SparkJars.lines(base).filter(l => l.maven.isDefined || installed.contains(l.id)).map(_.id)
  def use(id: String) = s"""set ThisBuild / sparkLine := "$id""""
  ids.toList.flatMap(id => List(use(id), command)) ::: use(chosen) :: state
}

lazy val root = (project in file("."))
  .settings(
    organization := "fastwindow",
    // moduleName (not name) drives the artifact name; set directly because sbt's default
    // normalisation would turn "4.3" into "4-3". Result: fastwindow-spark4.3_2.13-<version>.jar
    name := "fastwindow",
    moduleName := s"fastwindow-spark${sparkTarget.value.line.line}",
    // One target dir per line: lines of the same Scala version must not share compiled classes.
    target := baseDirectory.value / "target" / s"spark${sparkTarget.value.line.id}",
    // The Python package is the single source of the version (python/fastwindow/_version.py,
    // `__version__ = "X.Y.Z"`); 0.1.0 until that file exists.
    version := {
      val versionFile = baseDirectory.value / "python" / "fastwindow" / "_version.py"
      val VersionLine = """(?m)^__version__\s*=\s*["']([^"']+)["']""".r
      if (versionFile.isFile)
        VersionLine.findFirstMatchIn(IO.read(versionFile)).map(_.group(1)).getOrElse("0.1.0")
      else "0.1.0"
    },

    // Must match the Scala that Spark was built with (its scala-library jar), else binary
    // incompatibilities surface at run time.
    scalaVersion := sparkTarget.value.scalaVersion,
    scalacOptions ++= Seq("-deprecation", "-feature", "-release", "17",
      // A match that misses a case of a sealed type (a frame shape, a ranking kind, an order
      // dependence) fails the build: every such match names every case.
      "-Wconf:cat=other-match-analysis:e"),
    javacOptions ++= Seq("--release", "17"),

    // Non-standard source layout (scala-src/ sits beside python/).
    Compile / scalaSource       := baseDirectory.value / "scala-src" / "main" / "scala",
    // Code that differs between Spark lines: the chosen line's shim folders.
    Compile / unmanagedSourceDirectories ++= sparkTarget.value.shimDirs(baseDirectory.value),
    Compile / javaSource        := baseDirectory.value / "scala-src" / "main" / "java",
    Compile / resourceDirectory := baseDirectory.value / "scala-src" / "main" / "resources",
    Test / scalaSource          := baseDirectory.value / "scala-src" / "test" / "scala",
    Test / javaSource           := baseDirectory.value / "scala-src" / "test" / "java",
    Test / resourceDirectory    := baseDirectory.value / "scala-src" / "test" / "resources",

    // Spark (and its whole dependency set, incl. Scala modules): the installed Spark's jars as
    // unmanaged jars, or the line's release from Maven Central as Provided. Test extends Compile,
    // so tests see them too. Neither is put into the jar `package` builds: it is a thin jar of
    // our classes, Spark provides the rest at run time.
    Compile / unmanagedJars ++= installedSpark(sparkTarget.value),
    libraryDependencies ++= mavenSpark(sparkTarget.value, Provided),
    libraryDependencies += scalatest("scalatest", "3.2.19", scalaBinaryVersion.value),

    // Build metadata read at run time by fastwindow.FastWindow (version checks, Python side).
    Compile / resourceGenerators += Def.task {
      val out = (Compile / resourceManaged).value / "fastwindow-build.properties"
      val content =
        s"""version=${version.value}
           |spark.version=${sparkTarget.value.sparkVersion}
           |scala.binary.version=${scalaBinaryVersion.value}
           |""".stripMargin
      // Rewrite only on change so incremental builds stay no-ops.
      if (!out.isFile || IO.read(out) != content) IO.write(out, content)
      Seq(out)
    }.taskValue,

    // Spark tests run in a forked JVM: Spark on Java 17 needs the module opens below (the
    // list Spark's launcher adds, org.apache.spark.launcher.JavaModuleOptions), and a fresh
    // JVM keeps SparkContexts and their threads out of sbt's own JVM.
    Test / fork := true,
    Test / parallelExecution := false, // one local SparkSession at a time; 2-core machines
    Test / javaOptions ++= Seq(
      "-Xmx2g",
      "-XX:+IgnoreUnrecognizedVMOptions",
      // The JIT's first tier only: the forked test JVM lives two minutes, too short for the
      // optimizing tier to earn back its compiles (as for Spark's suites, tests/spark_suites.py).
      "-XX:TieredStopAtLevel=1",
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
      "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
      "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
      "--add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
      "-Djdk.reflect.useDirectMethodHandle=false",
      "-Dio.netty.tryReflectionSetAccessible=true"
    ),
    // -oD: per-test durations in the log, useful for spotting slow Spark suites in CI.
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD")
  )

// Spark's own window test suites, run against the installed Spark with fastwindow on and off by
// tests/spark_suites.py (which asks this project for its classpath). The test-jars are the line's
// Spark release on Maven Central; for 4.3, which Maven Central does not serve, 4.2.0's, which run
// against the 4.3 runtime too (the runner lists the few tests that fail identically with
// fastwindow off because of that version gap).
lazy val sparkSuitesFallbackVersion = "4.2.0"

lazy val sparkSuites = (project in file("tests/spark-suites"))
  .dependsOn(root % "compile->compile;test->test")
  .settings(
    scalaVersion := (root / scalaVersion).value,
    target := baseDirectory.value / "target" / s"spark${sparkTarget.value.line.id}",
    publish / skip := true,
    Compile / unmanagedJars ++= installedSpark(sparkTarget.value),
    libraryDependencies ++= mavenSpark(sparkTarget.value, Test),
    libraryDependencies ++= {
      val release = sparkTarget.value.line.maven.map(_._1).getOrElse(sparkSuitesFallbackVersion)
      Seq("core", "catalyst", "sql").map { module =>
        ("org.apache.spark" %% s"spark-$module" % release % Test).classifier("tests").intransitive()
      }
    },
    libraryDependencies ++= Seq(
      scalatest("scalatest", "3.2.19", scalaBinaryVersion.value),
      ("org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test)
        .exclude("org.scala-lang.modules", s"scala-xml_${scalaBinaryVersion.value}")))
