// sbt build for fastwindow, a Spark SQL extension.
//
// Run it with the wrapper, which needs only Java 17 and Maven Central:
//   bash .ci/sbt compile test package
// The jar lands in target/scala-2.13/fastwindow-spark<major.minor>_2.13-<version>.jar.
//
// Spark itself is NOT a library dependency: we compile and test against the jars of an
// installed Spark (normally pyspark's jars/ dir), see project/SparkJars.scala for why and for
// the lookup order (FASTWINDOW_SPARK_JARS, $SPARK_HOME/jars, pyspark's jars).

// Evaluated once when the build loads; fails the load with a how-to-fix message if no Spark.
lazy val spark: SparkJars.Spark = SparkJars.locate()

lazy val root = (project in file("."))
  .settings(
    organization := "fastwindow",
    // moduleName (not name) drives the artifact name; set directly because sbt's default
    // normalisation would turn "4.3" into "4-3". Result: fastwindow-spark4.3_2.13-<version>.jar
    name := "fastwindow",
    moduleName := s"fastwindow-spark${spark.binaryVersion}",
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
    scalaVersion := spark.scalaVersion.getOrElse("2.13.18"),
    scalacOptions ++= Seq("-deprecation", "-feature", "-release", "17"),
    javacOptions ++= Seq("--release", "17"),

    // Non-standard source layout (scala-src/ sits beside python/).
    Compile / scalaSource       := baseDirectory.value / "scala-src" / "main" / "scala",
    // Code that differs between Spark lines: the installed Spark's shim folders.
    Compile / unmanagedSourceDirectories ++= spark.shimDirs(baseDirectory.value),
    Compile / javaSource        := baseDirectory.value / "scala-src" / "main" / "java",
    Compile / resourceDirectory := baseDirectory.value / "scala-src" / "main" / "resources",
    Test / scalaSource          := baseDirectory.value / "scala-src" / "test" / "scala",
    Test / javaSource           := baseDirectory.value / "scala-src" / "test" / "java",
    Test / resourceDirectory    := baseDirectory.value / "scala-src" / "test" / "resources",

    // Spark (and its whole dependency set, incl. Scala modules) as unmanaged jars. Test
    // extends Compile, so tests see them too. Unmanaged jars are never put into the jar
    // `package` builds: it is a thin jar of our classes, Spark provides the rest at run time.
    Compile / unmanagedJars ++= Attributed.blankSeq(spark.jars),

    // scala-xml is excluded because Spark's jars already carry a newer, binary-compatible one
    // (and unmanaged jars come first on the classpath anyway); this just avoids two copies.
    libraryDependencies +=
      ("org.scalatest" %% "scalatest" % "3.2.19" % Test).exclude("org.scala-lang.modules", "scala-xml_2.13"),

    // Build metadata read at run time by fastwindow.FastWindow (version checks, Python side).
    Compile / resourceGenerators += Def.task {
      val out = (Compile / resourceManaged).value / "fastwindow-build.properties"
      val content =
        s"""version=${version.value}
           |spark.version=${spark.sparkVersion}
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
// tests/spark_suites.py (which asks this project for its classpath). Maven Central serves Spark's
// test-jars up to 4.2.0; they run against the 4.3 runtime too (the runner lists the few tests that
// fail identically with fastwindow off because of that version gap).
lazy val sparkSuitesVersion = "4.2.0"

lazy val sparkSuites = (project in file("tests/spark-suites"))
  .dependsOn(root % "compile->compile;test->test")
  .settings(
    scalaVersion := (root / scalaVersion).value,
    publish / skip := true,
    Compile / unmanagedJars ++= Attributed.blankSeq(spark.jars),
    libraryDependencies ++= Seq("core", "catalyst", "sql").map { module =>
      ("org.apache.spark" %% s"spark-$module" % sparkSuitesVersion % Test)
        .classifier("tests").intransitive()
    } ++ Seq(
      ("org.scalatest" %% "scalatest" % "3.2.19" % Test)
        .exclude("org.scala-lang.modules", "scala-xml_2.13"),
      ("org.scalatestplus" %% "scalacheck-1-18" % "3.2.19.0" % Test)
        .exclude("org.scala-lang.modules", "scala-xml_2.13")))
