// MARK: - Digest32

/// A SHA-256 value (a line's `hash`, an image's or token's digest) as 32 bytes instead of 64 hex characters.
public struct Digest32: Hashable, Sendable {
    /// The bytes, big-endian, eight at a time.
    public var a: UInt64, b: UInt64, c: UInt64, d: UInt64

    /// A digest from its four big-endian words.
    public init(a: UInt64, b: UInt64, c: UInt64, d: UInt64) { self.a = a; self.b = b; self.c = c; self.d = d }

    /// All zeros: the `prev` of the first line.
    public static let zero = Digest32(a: 0, b: 0, c: 0, d: 0)

    /// The digest spelled by 64 lowercase hex bytes; nil for anything else.
    public init?(hexBytes bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 64 else { return nil }
        let p = bytes.baseAddress!
        var bad = false
        let a = HexDigits.hex8(p, &bad) << 32 | HexDigits.hex8(p + 8, &bad), b = HexDigits.hex8(p + 16, &bad) << 32 | HexDigits.hex8(p + 24, &bad)
        let c = HexDigits.hex8(p + 32, &bad) << 32 | HexDigits.hex8(p + 40, &bad), d = HexDigits.hex8(p + 48, &bad) << 32 | HexDigits.hex8(p + 56, &bad)
        guard !bad else { return nil }
        self.init(a: a, b: b, c: c, d: d)
    }

    /// The digest spelled by 64 lowercase hex characters; nil for anything else.
    public init?(hex text: String) {
        var text = text
        guard let digest = text.withUTF8({ Digest32(hexBytes: $0) }) else { return nil }
        self = digest
    }

    /// The digest of 32 raw bytes (as libcrypto returns it).
    public init(bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == 32, "a SHA-256 digest has 32 bytes")
        func word(_ at: Int) -> UInt64 { UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        self.init(a: word(0), b: word(8), c: word(16), d: word(24))
    }

    /// The 64 lowercase hex characters.
    public var hex: String {
        String(unsafeUninitializedCapacity: 64) { out in
            writeHex(into: out.baseAddress!)
            return 64
        }
    }

    /// Writes the 64 bytes of `hex` at `out`.
    public func writeHex(into out: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeMutableRawPointer(out)
        func put(_ word: UInt64, at offset: Int) {
            raw.storeBytes(of: HexDigits.spell8(UInt32(truncatingIfNeeded: word >> 32)).littleEndian, toByteOffset: offset, as: UInt64.self)
            raw.storeBytes(of: HexDigits.spell8(UInt32(truncatingIfNeeded: word)).littleEndian, toByteOffset: offset + 8, as: UInt64.self)
        }
        put(a, at: 0); put(b, at: 16); put(c, at: 32); put(d, at: 48)
    }
}
