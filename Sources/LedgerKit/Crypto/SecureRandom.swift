import CLibcrypto

// MARK: - RandomSource

/// A source of random bytes, injected so tests can be deterministic.
public protocol RandomSource {
    /// `count` random bytes.
    func bytes(_ count: Int) -> [UInt8]
}

/// Cryptographically secure bytes from OpenSSL's `RAND_bytes`.
public struct SecureRandom: RandomSource {
    /// The system CSPRNG.
    public init() {}

    /// `count` random bytes; traps only if the CSPRNG itself is broken.
    public func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(ok == 1, "RAND_bytes failed: no secure randomness available")
        return out
    }
}
