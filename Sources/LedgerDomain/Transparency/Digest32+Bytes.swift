// MARK: - Digest32 + Bytes

/// A digest as the 32 raw bytes a Merkle tree hashes and a signed note spells in Base64.
extension Digest32 {
    /// Calls `body` with the 32 bytes, big-endian, on the stack.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var words = (a.bigEndian, b.bigEndian, c.bigEndian, d.bigEndian)
        return try Swift.withUnsafeBytes(of: &words) { try body($0) }
    }

    /// The 32 bytes, big-endian.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// The digest of exactly 32 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self = bytes.withUnsafeBytes { Digest32(bytes: $0) }
    }

    /// The padded Base64 of the 32 bytes (44 characters), as a signed note and a proof spell a hash.
    public var base64: String { Base64.encode(bytes) }

    /// The digest spelled in canonical padded Base64; nil unless it decodes to exactly 32 bytes.
    public init?(base64 text: String) {
        guard let bytes = Base64.decode(text) else { return nil }
        self.init(bytes: bytes)
    }

    /// Writes the 32 bytes at `out`, big-endian.
    public func store(into out: UnsafeMutableRawPointer) {
        out.storeBytes(of: a.bigEndian, toByteOffset: 0, as: UInt64.self)
        out.storeBytes(of: b.bigEndian, toByteOffset: 8, as: UInt64.self)
        out.storeBytes(of: c.bigEndian, toByteOffset: 16, as: UInt64.self)
        out.storeBytes(of: d.bigEndian, toByteOffset: 24, as: UInt64.self)
    }
}
