// MARK: - Seeded hash

extension UUIDBits {
    /// A 64-bit mix of the bits under a per-process seed taken from the standard library's own
    /// randomly seeded `Hasher`: several times cheaper than `hashValue` (SipHash), and a log writer
    /// who does not know the seed cannot pick ids that collide. Used by the replay's id set, indexes
    /// and repeated-id fingerprints. The two halves meet in a full-width product (the wyhash fold):
    /// an earlier `high · K + low` let flips of bit 63 in both halves cancel for every seed.
    @inline(__always)
    public var seededHash: Int {
        let seed = UUIDHashSeed.value
        return Int(truncatingIfNeeded: fingerprint(seedHigh: seed.0, seedLow: seed.1))
    }

    /// The same mix under an explicit seed: the fingerprints a checkpoint keeps (`IDFingerprints`),
    /// which must mean the same in every process that reads it.
    @inline(__always)
    public func fingerprint(seed: UUIDBits) -> UInt64 { fingerprint(seedHigh: seed.high, seedLow: seed.low) }

    @inline(__always)
    private func fingerprint(seedHigh: UInt64, seedLow: UInt64) -> UInt64 {
        let (upper, lower) = (high ^ seedHigh).multipliedFullWidth(by: low ^ seedLow ^ 0x9E37_79B9_7F4A_7C15)
        var x = upper ^ lower
        x ^= x >> 32
        x &*= 0xD6E8_FEB8_6659_FD93
        x ^= x >> 32
        return x
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
