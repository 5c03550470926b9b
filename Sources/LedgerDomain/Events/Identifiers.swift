// MARK: - Identifiers

/// Checks and builds the lowercase UUIDs and hex digests of the log format.
public enum Identifiers {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// True for `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hex digits.
    public static func isLowercaseUUID(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == 36 else { return false }
            for offset in 0..<36 {
                let byte = bytes[offset]
                if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                    guard byte == UInt8(ascii: "-") else { return false }
                } else if !isLowerHex(byte) {
                    return false
                }
            }
            return true
        }
    }

    /// An id as a person typed it, in the log's form: a UUID or a stream name (`account-<uuid>`)
    /// in any case comes back lowercase; any other text (an email, a typo) comes back unchanged.
    public static func typed(_ text: String) -> String {
        let lowered = text.lowercasedASCII
        guard lowered != text, isLowercaseUUID(lowered) || StreamName.parse(lowered) != nil else { return text }
        return lowered
    }

    /// True for exactly `length` lowercase hex digits (64 for a SHA-256 digest).
    public static func isLowerHex(_ text: String, length: Int = 64) -> Bool {
        var text = text
        return text.withUTF8 { bytes in bytes.count == length && bytes.allSatisfy(isLowerHex) }
    }

    /// Lowercase hex of `bytes`.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let array = Array(bytes)
        return array.withUnsafeBufferPointer { hex($0) }
    }

    /// Lowercase hex of `bytes`, written straight into the string's storage.
    public static func hex(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            hexDigits.withUnsafeBufferPointer { digits in
                for (index, byte) in bytes.enumerated() {
                    out[2 * index] = digits[Int(byte >> 4)]
                    out[2 * index + 1] = digits[Int(byte & 0xF)]
                }
            }
            return bytes.count * 2
        }
    }

    /// A version-4 UUID string from 16 random bytes (extra bytes are ignored).
    public static func uuid(fromRandom bytes: [UInt8]) -> String {
        precondition(bytes.count >= 16, "a UUID needs 16 bytes")
        var b = Array(bytes.prefix(16))
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        let h = Array(hex(b).utf8)
        let parts = [h[0..<8], h[8..<12], h[12..<16], h[16..<20], h[20..<32]]
        return parts.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "-")
    }

    /// The 128 bits of a lowercase UUID, for compact sets; nil when not a lowercase UUID.
    public static func uuidBits(_ text: String) -> UUIDBits? {
        guard isLowercaseUUID(text) else { return nil }
        var text = text
        return text.withUTF8 { bytes in
            var high: UInt64 = 0, low: UInt64 = 0, nibbles = 0
            for byte in bytes where byte != UInt8(ascii: "-") {
                let value = UInt64(byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "a") + 10)
                if nibbles < 16 { high = high << 4 | value } else { low = low << 4 | value }
                nibbles += 1
            }
            return UUIDBits(high: high, low: low)
        }
    }

    static func isLowerHex(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }
}

/// A UUID as two 64-bit halves: 16 bytes in a set instead of a 36-character string.
public struct UUIDBits: Hashable, Sendable {
    /// The first 64 bits.
    public let high: UInt64
    /// The last 64 bits.
    public let low: UInt64

    /// The bits from their two halves.
    public init(high: UInt64, low: UInt64) { self.high = high; self.low = low }
}
