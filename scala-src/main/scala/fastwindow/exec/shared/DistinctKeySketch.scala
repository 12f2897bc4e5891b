package fastwindow.exec.shared

import org.apache.spark.sql.catalyst.expressions.{UnsafeRow, XXH64}

/**
 * An estimate of how many distinct keys a stream of key rows held (a HyperLogLog of 4,096
 * one-byte registers: about 1.6% error, 4 KB), for an operator that must judge whether grouping
 * its rows by key pays without holding them. Equal keys must come as equal bytes (rows of one
 * projection).
 */
final class DistinctKeySketch {
  import DistinctKeySketch._

  private val registers = new Array[Byte](Registers)

  def add(key: UnsafeRow): Unit = {
    val hash = XXH64.hashUnsafeBytes(key.getBaseObject, key.getBaseOffset, key.getSizeInBytes, 42L)
    val register = (hash >>> (64 - IndexBits)).toInt
    // The rank of the first 1 bit in the rest of the hash; the sentinel bit caps it.
    val rank = java.lang.Long.numberOfLeadingZeros((hash << IndexBits) | SentinelBit) + 1
    if (rank > registers(register)) registers(register) = rank.toByte
  }

  /** The estimated number of distinct keys added since the last `clear`. */
  def estimate: Double = {
    var sum = 0.0
    var zeros = 0
    var i = 0
    while (i < Registers) {
      sum += java.lang.Math.scalb(1.0, -registers(i))
      if (registers(i) == 0) zeros += 1
      i += 1
    }
    val raw = Alpha * Registers.toDouble * Registers / sum
    // Few keys: linear counting of the empty registers is the better estimate.
    if (raw <= 2.5 * Registers && zeros > 0) Registers * math.log(Registers.toDouble / zeros)
    else raw
  }

  def clear(): Unit = java.util.Arrays.fill(registers, 0.toByte)
}

object DistinctKeySketch {
  private val IndexBits = 12
  private val Registers = 1 << IndexBits
  private val SentinelBit = 1L << (IndexBits - 1)
  private val Alpha = 0.7213 / (1 + 1.079 / Registers)
}
