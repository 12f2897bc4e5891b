package fastwindow.codegen

import fastwindow.columns.Column
import fastwindow.ops.OpsSet

/** What the generated class is: a factory of one task's ops over that task's columns. */
abstract class GeneratedOps {
  def create(columns: Array[Column]): OpsSet
}
