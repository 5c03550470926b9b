// MARK: - UUIDBits text

extension UUIDBits {
    /// All zero bits (never a version-4 UUID: used as "none" only where documented).
    public static let zero = UUIDBits(high: 0, low: 0)

    /// The 128 bits of a lowercase UUID read in place from its 36 bytes; nil for anything else.
    public init?(uuidBytes bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 36 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0, nibbles = 0
        for offset in 0..<36 {
            let byte = bytes[offset]
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let value = HexDigits.value(byte) else { return nil }
            if nibbles < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            nibbles += 1
        }
        self.init(high: high, low: low)
    }

    /// The 128 bits of a lowercase UUID; nil for anything else.
    public init?(uuid text: String) {
        var text = text
        guard let bits = text.withUTF8({ UUIDBits(uuidBytes: $0) }) else { return nil }
        self = bits
    }

    /// The lowercase `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` spelling.
    public var uuidString: String {
        String(unsafeUninitializedCapacity: 36) { out in
            writeUUID(into: out.baseAddress!)
            return 36
        }
    }

    /// Writes the 36 bytes of `uuidString` at `out`.
    public func writeUUID(into out: UnsafeMutablePointer<UInt8>) {
        var o = 0
        for nibble in 0..<32 {
            if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 { out[o] = UInt8(ascii: "-"); o += 1 }
            let word = nibble < 16 ? high : low
            let shift = UInt64(60 - 4 * (nibble & 15))
            out[o] = HexDigits.digit(UInt8(truncatingIfNeeded: (word >> shift) & 0xF))
            o += 1
        }
    }
}

// MARK: - HexDigits

/// Lowercase hex digits in both directions, byte by byte.
public enum HexDigits {
    /// The value of a lowercase hex digit; nil for any other byte.
    @inline(__always)
    public static func value(_ byte: UInt8) -> UInt8? {
        if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { return byte &- UInt8(ascii: "0") }
        if byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f") { return byte &- UInt8(ascii: "a") &+ 10 }
        return nil
    }

    /// The lowercase digit of a nibble (0…15).
    @inline(__always)
    public static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ nibble &- 10
    }
}
