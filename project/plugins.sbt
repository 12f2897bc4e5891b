// scalafmt: `bash .ci/sbt scalafmtCheckAll` (CI) checks scala-src/ against .scalafmt.conf;
// `bash .ci/sbt scalafmtAll` formats it.
addSbtPlugin("org.scalameta" % "sbt-scalafmt" % "2.5.2")
