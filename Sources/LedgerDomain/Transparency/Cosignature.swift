// MARK: - Cosignature

/// A witness's timestamped Ed25519 cosignature (C2SP tlog-cosignature, type 0x04). The witness
/// signs `cosignature/v1\ntime <unix seconds>\n` followed by the checkpoint's whole text; the
/// bytes after the key id in its signature line are the timestamp (8 bytes, big-endian) and the
/// 64-byte signature.
public enum Cosignature {
    /// The largest timestamp the format allows (2^63 − 1).
    public static let maxTimestamp = UInt64(Int64.max)

    /// The message a witness signs for `text` (a checkpoint's text, with its final newline) at `timestamp`.
    public static func message(timestamp: UInt64, text: String) -> [UInt8] {
        Array("cosignature/v1\ntime \(timestamp)\n".utf8) + Array(text.utf8)
    }

    /// The bytes after the key id: the timestamp, big-endian, then the signature.
    public static func signatureBytes(timestamp: UInt64, signature: [UInt8]) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: timestamp >> (56 - 8 * $0)) } + signature
    }

    /// The timestamp and signature in a cosignature's bytes; nil unless they are 8 + 64 bytes with
    /// a timestamp the format allows.
    public static func split(_ bytes: [UInt8]) -> (timestamp: UInt64, signature: [UInt8])? {
        guard bytes.count == NoteKeyType.cosignatureV1.signatureSize else { return nil }
        let timestamp = bytes[..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard timestamp <= maxTimestamp else { return nil }
        return (timestamp, Array(bytes[8...]))
    }
}
