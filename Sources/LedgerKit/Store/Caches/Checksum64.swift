// MARK: - Checksum64

/// A fast 64-bit checksum of bytes, not a cryptographic hash: it catches damage in a cache too large
/// for a SHA-256 seal to be cheap next to what the cache saves (`WritersIndex+Checkpoint`), not someone
/// who rewrites the cache, which `verify` notices. Four lanes of multiply-and-rotate rounds over 8-byte
/// words (the xxHash64 round), folded with the length at the end.
enum Checksum64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F

    /// The checksum of `bytes`.
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var running = Running()
        running.update(bytes)
        return running.value
    }

    /// The checksum of bytes given in pieces, the same as `of` their whole: every piece but the last
    /// is a multiple of 32 bytes long (so no word straddles two pieces).
    struct Running {
        private var a = prime1 &+ prime2, b = prime2, c: UInt64 = 0, d = 0 &- prime1
        private var count = 0
        private var tail = false

        /// Takes the next piece; false (nothing taken) when one shorter than a multiple of 32 came before.
        @discardableResult
        mutating func update(_ bytes: UnsafeRawBufferPointer) -> Bool {
            guard !tail else { return false }
            count += bytes.count
            guard let start = bytes.baseAddress else { return true }
            var i = 0
            while i + 32 <= bytes.count {
                a = round(a, start.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                b = round(b, start.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
                c = round(c, start.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self))
                d = round(d, start.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self))
                i += 32
            }
            tail = i < bytes.count
            while i < bytes.count {
                a = round(a, UInt64(start.load(fromByteOffset: i, as: UInt8.self)))
                i += 1
            }
            return true
        }

        /// The checksum of the pieces taken.
        var value: UInt64 { fold(a, b, c, d, count: count) }
    }

    @inline(__always)
    private static func round(_ lane: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = lane &+ word &* prime2
        return ((mixed << 31) | (mixed >> 33)) &* prime1
    }

    private static func fold(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64, count: Int) -> UInt64 {
        var h = round(round(round(round(UInt64(count), a), b), c), d)
        h ^= h >> 33
        h = h &* prime2
        h ^= h >> 29
        return h
    }
}
