package fastwindow.exec.acrosstasks

/** Which rows a seeded function's state is of: those before its range, all, or those after. */
sealed trait SeedRows

object SeedRows {
  case object Before extends SeedRows
  case object All extends SeedRows
  case object After extends SeedRows
}
