package fastwindow.ops

/** Whether two buffered rows are peers: every ORDER BY key equal, nulls equal to nulls. */
abstract class PeerKeys {
  def same(a: Int, b: Int): Boolean
}
