// MARK: - Seeded hash of text

extension String {
    /// A 64-bit hash of the UTF-8 bytes under the per-process seed of `UUIDBits.seededHash`: the
    /// views' email indexes use it instead of `hashValue`, which runs SipHash and a Unicode
    /// normalization check per call. Equal strings as ledger stores them (one UTF-8 spelling each)
    /// hash equally; a log writer who does not know the seed cannot pick emails that collide.
    @inline(__always)
    public var seededHash: Int {
        var text = self
        return text.withUTF8 { SeededBytes.hash(UnsafeRawBufferPointer($0)) }
    }
}

// MARK: - SeededBytes

/// The byte hash behind `String.seededHash`: 16 bytes per round folded with a full-width multiply
/// (the wyhash construction), keyed by `UUIDHashSeed` on both factors, so no input known without the
/// seed zeroes a product.
enum SeededBytes {
    /// The hash of `bytes` under the process's seed.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> Int { hash(bytes, seed: UUIDHashSeed.value) }

    /// The hash of `bytes` under `seed`.
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: (UInt64, UInt64)) -> Int {
        let count = bytes.count
        var state = seed.0 ^ (UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15)
        var at = 0
        while count - at > 16 {
            let a = bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)
            let b = bytes.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)
            state = fold(a ^ seed.1 ^ state, b ^ seed.0 ^ 0xE703_7ED1_A0B4_28DB)
            at += 16
        }
        // The last 1 to 16 bytes (none for an empty string): two loads that may overlap.
        var a: UInt64 = 0, b: UInt64 = 0
        let rest = count - at
        if rest >= 8 {
            a = bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)
            b = bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else if rest > 0 {
            for i in 0..<rest { a = a << 8 | UInt64(bytes[at + i]) }
            b = UInt64(bytes[at]) << 16 | UInt64(bytes[at + rest / 2]) << 8 | UInt64(bytes[count - 1])
        }
        state = fold(a ^ seed.1 ^ state, b ^ seed.0 ^ 0x8EBC_6AF0_9C88_C6E3)
        return Int(truncatingIfNeeded: fold(state ^ 0x5899_65CC_7537_4CC3, UInt64(truncatingIfNeeded: count) ^ seed.0))
    }

    /// The high and low halves of the 128-bit product, xored.
    @inline(__always)
    private static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        return high ^ low
    }
}
