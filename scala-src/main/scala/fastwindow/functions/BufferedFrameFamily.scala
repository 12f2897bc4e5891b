package fastwindow.functions

import scala.reflect.ClassTag

import fastwindow.columns.ColumnLayout
import fastwindow.model.{AcrossTasksRole, BufferedFrameFunction}
import fastwindow.ops.{FunctionRequests, ValueRequest}

/**
 * A family whose functions read one value per row over a frame of a buffered partition
 * ([[BufferedFrameFunction]]: percentiles, modes, distinct values, collections, sketches): its
 * kernel reads that value's column and the frame's RANGE edges, nothing else. Its functions are
 * aggregates.
 */
abstract class BufferedFrameFamily[S <: BufferedFrameFunction](kind: String)(
    implicit specTag: ClassTag[S])
  extends FunctionFamily[S](kind) {
  override def runsAggregates: Boolean = true
  override def requests(spec: S, layout: ColumnLayout): FunctionRequests =
    FunctionRequests(
      values = Seq(ValueRequest(layout.bind(spec.value), None, spec.value.dataType, 0)),
      rangeEdges = FramePlanning.requests(spec.frame, layout))

  override def acrossTasks(spec: S, exactFloats: Boolean, maxHaloRows: Int): AcrossTasksRole =
    AcrossTasksRole.overBoundedFrame(spec.frame)
}
