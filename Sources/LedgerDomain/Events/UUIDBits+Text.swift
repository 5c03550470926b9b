// MARK: - UUIDBits text

extension UUIDBits {
    /// All zero bits (never a version-4 UUID: used as "none" only where documented).
    public static let zero = UUIDBits(high: 0, low: 0)

    /// The 128 bits of a lowercase UUID read in place from its 36 bytes; nil for anything else.
    public init?(uuidBytes bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 36 else { return nil }
        let p = bytes.baseAddress!
        guard p[8] == UInt8(ascii: "-"), p[13] == UInt8(ascii: "-"), p[18] == UInt8(ascii: "-"), p[23] == UInt8(ascii: "-") else { return nil }
        var bad = false
        let high = HexDigits.word(p, count: 8, &bad) << 32 | HexDigits.word(p + 9, count: 4, &bad) << 16 | HexDigits.word(p + 14, count: 4, &bad)
        let low = HexDigits.word(p + 19, count: 4, &bad) << 48 | HexDigits.word(p + 24, count: 12, &bad)
        guard !bad else { return nil }
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

    /// The value of `count` (at most 16) lowercase hex digits at `p`; sets `bad` on any other byte.
    @inline(__always)
    public static func word(_ p: UnsafePointer<UInt8>, count: Int, _ bad: inout Bool) -> UInt64 {
        var word: UInt64 = 0
        var invalid = false
        for i in 0..<count {
            let byte = p[i]
            let digit = byte &- UInt8(ascii: "0"), letter = byte &- UInt8(ascii: "a")
            let isDigit = digit < 10
            invalid = invalid || !(isDigit || letter < 6)
            word = word << 4 | UInt64(isDigit ? digit : letter &+ 10)
        }
        if invalid { bad = true }
        return word
    }

    /// The lowercase digit of a nibble (0…15).
    @inline(__always)
    public static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ nibble &- 10
    }
}
