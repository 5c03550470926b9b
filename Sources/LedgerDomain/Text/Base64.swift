// MARK: - Base64

/// Base64 of RFC 4648 §4 (alphabet `A–Z a–z 0–9 + /`, `=` padding, no line breaks): what Python's
/// `base64.b64encode` writes and `base64.b64decode(s, validate=True)` reads. Used for the nonces and
/// ciphertexts of encrypted members (`EncryptedMember`).
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The 6-bit value of each byte, 255 for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    /// The padded Base64 text of `bytes`.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(group & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of the padded Base64 `text`, or nil unless it is canonical: a multiple of 4
    /// characters of the alphabet, `=` only as the last one or two, and zero bits under the padding
    /// (so each byte string has exactly one accepted spelling).
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(bytes: $0) }
    }

    /// `decode(_:)` of text given as its UTF-8 bytes (read in place from a log line).
    public static func decode(bytes chars: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard chars.count % 4 == 0 else { return nil }
        var failed = false
        let decoded = [UInt8](unsafeUninitializedCapacity: chars.count / 4 * 3) { out, count in
            guard let written = decode(bytes: chars, into: out) else { failed = true; return }
            count = written
        }
        return failed ? nil : decoded
    }

    /// `decode(bytes:)` into `out` (room for `chars.count / 4 * 3` bytes): the number of bytes
    /// written, or nil unless `chars` is canonical. No allocation: the in-place reader decodes the
    /// nonce and ciphertext of an encrypted member into buffers of its own.
    public static func decode(bytes chars: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        guard chars.count % 4 == 0, out.count >= chars.count / 4 * 3 else { return nil }
        guard chars.count > 0 else { return 0 }
        return values.withUnsafeBufferPointer { values -> Int? in
            let table = values.baseAddress!, text = chars.baseAddress!, bytes = out.baseAddress!
            // Every group but the last holds four characters of the alphabet (`=` is outside it:
            // 255): their values or'ed together stay under 64 unless one is not.
            var count = 0, i = 0
            let lastGroup = chars.count - 4
            while i < lastGroup {
                let a = table[Int(text[i])], b = table[Int(text[i + 1])], c = table[Int(text[i + 2])], d = table[Int(text[i + 3])]
                guard (a | b | c | d) & 0xC0 == 0 else { return nil }
                let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                bytes[count] = UInt8(truncatingIfNeeded: group >> 16)
                bytes[count + 1] = UInt8(truncatingIfNeeded: group >> 8)
                bytes[count + 2] = UInt8(truncatingIfNeeded: group)
                count += 3
                i += 4
            }
            // The last group: up to two `=`, with zero bits under them.
            let padding = text[i + 3] == UInt8(ascii: "=") ? (text[i + 2] == UInt8(ascii: "=") ? 2 : 1) : 0
            var group: UInt32 = 0
            for j in 0..<4 {
                let value = j >= 4 - padding ? 0 : table[Int(text[i + j])]
                guard value != 255 else { return nil }
                group = group << 6 | UInt32(value)
            }
            bytes[count] = UInt8(group >> 16 & 0xFF); count += 1
            if padding < 2 { bytes[count] = UInt8(group >> 8 & 0xFF); count += 1 } else if group & 0xFFFF != 0 { return nil }
            if padding < 1 { bytes[count] = UInt8(group & 0xFF); count += 1 } else if group & 0xFF != 0 { return nil }
            return count
        }
    }

    // MARK: - Checking in place

    /// The end of the canonical Base64 text that starts at `bytes[from]` and runs up to the first
    /// byte outside the alphabet and its padding: the index after it, when what lies there is what
    /// `decode(bytes:)` accepts (nil otherwise, and for empty text). What `decode` checks, in one
    /// pass of eight bytes at a time with no table: the in-place reader checks the members it
    /// leaves sealed this way, and so finds where each one ends. O(n).
    public static func canonicalEnd(in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        let raw = UnsafeRawPointer(bytes.baseAddress!)
        var i = from
        while i + 8 <= bytes.count {
            let flags = alphabetFlags(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            if flags == 0x8080_8080_8080_8080 { i += 8; continue }
            i += (~flags & 0x8080_8080_8080_8080).trailingZeroBitCount / 8  // the first byte outside the alphabet (little-endian)
            return paddedEnd(in: bytes, from: from, at: i)
        }
        while i < bytes.count, isAlphabet(bytes[i]) { i += 1 }
        return paddedEnd(in: bytes, from: from, at: i)
    }

    /// `canonicalEnd` once the alphabet's run from `from` ends at `i`: up to two `=`, a multiple of
    /// four characters, and zero bits under the padding.
    private static func paddedEnd(in bytes: UnsafeBufferPointer<UInt8>, from: Int, at i: Int) -> Int? {
        var end = i
        while end < bytes.count, end - i < 2, bytes[end] == UInt8(ascii: "=") { end += 1 }
        let padding = end - i
        guard end > from, (end - from) % 4 == 0 else { return nil }
        switch padding {
        case 1: return value(of: bytes[i - 1]) & 0x03 == 0 ? end : nil  // the last 2 of its 6 bits lie under the padding
        case 2: return i - from >= 2 && value(of: bytes[i - 1]) & 0x0F == 0 ? end : nil
        default: return end
        }
    }

    /// Per byte of `word`, its high bit set when the byte is in the alphabet (`A–Z a–z 0–9 + /`),
    /// clear otherwise: the exact "byte between m and n" test of Bit Twiddling Hacks, per range.
    @inline(__always)
    static func alphabetFlags(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F, highs: UInt64 = 0x8080_8080_8080_8080
        /// High bit of each byte b < 0x80 of `x` with m < b < n.
        @inline(__always) func between(_ x: UInt64, _ m: UInt64, _ n: UInt64) -> UInt64 {
            (ones &* (127 + n) &- (x & lows)) & ~x & ((x & lows) &+ ones &* (127 - m)) & highs
        }
        let letters = between(word | ones &* 0x20, 0x60, 0x7B)  // A–Z folded onto a–z
        let digitsAndSlash = between(word, 0x2E, 0x3A), plus = between(word, 0x2A, 0x2C)
        return (letters | digitsAndSlash | plus) & ~word & highs
    }

    /// True for a byte of the alphabet.
    @inline(__always)
    static func isAlphabet(_ byte: UInt8) -> Bool {
        alphabetFlags(UInt64(byte)) & 0x80 != 0
    }

    /// The 6-bit value of a byte of the alphabet.
    @inline(__always)
    private static func value(of byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        default: 63
        }
    }
}
