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
        let high = HexDigits.hex8(p, &bad) << 32 | HexDigits.hex4(p + 9, &bad) << 16 | HexDigits.hex4(p + 14, &bad)
        let low = HexDigits.hex4(p + 19, &bad) << 48 | HexDigits.hex4(p + 24, &bad) << 32 | HexDigits.hex8(p + 28, &bad)
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

    /// Writes the 36 bytes of `uuidString` at `out`: eight digits at a time (`HexDigits.spell8`).
    public func writeUUID(into out: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeMutableRawPointer(out)
        let w1 = HexDigits.spell8(UInt32(truncatingIfNeeded: high)), w2 = HexDigits.spell8(UInt32(truncatingIfNeeded: low >> 32))
        raw.storeBytes(of: HexDigits.spell8(UInt32(truncatingIfNeeded: high >> 32)).littleEndian, as: UInt64.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: w1).littleEndian, toByteOffset: 9, as: UInt32.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: w1 >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: w2).littleEndian, toByteOffset: 19, as: UInt32.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: w2 >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
        raw.storeBytes(of: HexDigits.spell8(UInt32(truncatingIfNeeded: low)).littleEndian, toByteOffset: 28, as: UInt64.self)
        out[8] = UInt8(ascii: "-"); out[13] = UInt8(ascii: "-"); out[18] = UInt8(ascii: "-"); out[23] = UInt8(ascii: "-")
    }
}

// MARK: - HexDigits

/// Lowercase hex digits in both directions, byte by byte.
public enum HexDigits {
    /// The value of the 8 lowercase hex digits at `p`; sets `bad` when any byte is not one.
    /// Eight bytes at once: range checks and nibble values per byte within one 64-bit word.
    @inline(__always)
    public static func hex8(_ p: UnsafePointer<UInt8>, _ bad: inout Bool) -> UInt64 {
        let x = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        let high: UInt64 = 0x8080_8080_8080_8080
        // For bytes below 0x80 no sum below carries into the next byte: bit 7 says "at least".
        let atLeast0 = x &+ 0x5050_5050_5050_5050, above9 = x &+ 0x4646_4646_4646_4646
        let atLeastA = x &+ 0x1F1F_1F1F_1F1F_1F1F, aboveF = x &+ 0x1919_1919_1919_1919
        let valid = ((atLeast0 & ~above9) | (atLeastA & ~aboveF)) & high
        if x & high != 0 || valid != high { bad = true }
        // '0'…'9' → 0…9 and 'a'…'f' → 10…15: the low nibble, plus 9 for letters (bit 6).
        var w = ((x & 0x0F0F_0F0F_0F0F_0F0F) &+ 9 &* ((x >> 6) & 0x0101_0101_0101_0101)).byteSwapped
        w = (w | (w >> 4)) & 0x00FF_00FF_00FF_00FF
        w = (w | (w >> 8)) & 0x0000_FFFF_0000_FFFF
        return (w | (w >> 16)) & 0xFFFF_FFFF
    }

    /// The value of the 4 lowercase hex digits at `p`; sets `bad` when any byte is not one.
    @inline(__always)
    public static func hex4(_ p: UnsafePointer<UInt8>, _ bad: inout Bool) -> UInt64 {
        let x = UInt32(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt32.self))
        let high: UInt32 = 0x8080_8080
        let atLeast0 = x &+ 0x5050_5050, above9 = x &+ 0x4646_4646
        let atLeastA = x &+ 0x1F1F_1F1F, aboveF = x &+ 0x1919_1919
        let valid = ((atLeast0 & ~above9) | (atLeastA & ~aboveF)) & high
        if x & high != 0 || valid != high { bad = true }
        var w = ((x & 0x0F0F_0F0F) &+ 9 &* ((x >> 6) & 0x0101_0101)).byteSwapped
        w = (w | (w >> 4)) & 0x00FF_00FF
        return UInt64((w | (w >> 8)) & 0xFFFF)
    }

    /// The 8 lowercase hex digits of `value`, its first digit in the lowest byte (to be stored
    /// little-endian): the nibbles spread one per byte, then '0' added, and 39 more for 10…15.
    @inline(__always)
    public static func spell8(_ value: UInt32) -> UInt64 {
        var x = UInt64(value)
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
        x = ((x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F).byteSwapped
        let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return x &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
    }

    /// The lowercase digit of a nibble (0…15).
    @inline(__always)
    public static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ nibble &- 10
    }
}
