package fastwindow.exec.window

/** Where the last (maybe still growing) peer group of the rows ingested so far starts. */
trait PeerProgress {
  def lastPeerGroupStart: Int
}
