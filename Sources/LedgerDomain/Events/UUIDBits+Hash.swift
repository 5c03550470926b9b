// MARK: - Seeded hash

extension UUIDBits {
    /// A 64-bit mix of the bits under a per-process seed taken from the standard library's own
    /// randomly seeded `Hasher`: several times cheaper than `hashValue` (SipHash), and a log writer
    /// who does not know the seed cannot pick ids that collide. Used by the replay's id set and indexes.
    @inline(__always)
    public var seededHash: Int {
        let seed = UUIDHashSeed.value
        var x = (high ^ seed.0) &* 0x9E37_79B9_7F4A_7C15 &+ (low ^ seed.1)
        x ^= x >> 32
        x &*= 0xD6E8_FEB8_6659_FD93
        x ^= x >> 32
        return Int(truncatingIfNeeded: x)
    }
}

/// The seed of `UUIDBits.seededHash`, fixed for the life of the process.
enum UUIDHashSeed {
    static let value: (UInt64, UInt64) = {
        var first = Hasher(), second = Hasher()
        first.combine(0x6c65_6467_6572 as UInt64)
        second.combine(0x6964_7365_6564 as UInt64)
        return (UInt64(bitPattern: Int64(first.finalize())), UInt64(bitPattern: Int64(second.finalize())))
    }()
}
