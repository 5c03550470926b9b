#if canImport(LedgerDomain)
import LedgerDomain
#endif

// MARK: - Mutator

/// Byte-level mutations in the style of AFL/libFuzzer: bit flips, interesting bytes and tokens,
/// inserted, deleted, duplicated and swapped ranges, truncation and splicing.
enum Mutator {
    /// Bytes that matter to a JSON reader or a UTF-8 validator.
    static let interestingBytes: [UInt8] = [
        0x00, 0x01, 0x08, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF,
        0xF0, 0xF4, 0xF5, 0xFE, 0xFF,
        UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"),
        UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"),
        UInt8(ascii: "E"), UInt8(ascii: "0"), UInt8(ascii: "9"), UInt8(ascii: "u"), UInt8(ascii: "a"), UInt8(ascii: "f"),
        UInt8(ascii: "n"), UInt8(ascii: "t"),
    ]

    /// Short byte strings that matter to the reader, the envelope and the UTF-8 rules.
    static let tokens: [[UInt8]] = [
        "\\u0000", "\\ud800", "\\udbff\\udfff", "\\udc00", "\\ud800\\u0041", "\\ud83d\\ude00", "\\uD800", "\\u00e9",
        "\\uffff", "\\u", "\\x41", "\\", "\"", "\"\"", "null", "true", "false", "nul", "[]", "{}", "[[[[", "]]]]",
        "{\"a\":", "1e400", "-1e400", "1E+308", "99999999999999999999999", "-9223372036854775809", "9223372036854775807",
        "0.0000000000000000000001", "-0", "01", "1.", ".5", "1e", "NaN", "Infinity",
        ",\"hash\":\"", ",\"seq\":1", ",\"data\":{}", ",\"type\":\"Failed\"", "\"prev\":\"", "\"id\":\"",
        "00000000-0000-4000-8000-000000000000", "registration-", "session-", "signin-",
        "2026-02-29T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "+23:59",
    ].map { Array($0.utf8) } + [
        [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80],
        [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xEF, 0xBB, 0xBF],
        [0xE2, 0x80, 0xA8], [0xCC, 0x81], [0x00, 0x00, 0x00, 0x00],
    ]

    /// The tokens with bytes outside ASCII (invalid, overlong, surrogate and truncated UTF-8 among them).
    static let nonASCIITokens = tokens.filter { $0.contains { $0 >= 0x80 } }

    /// Applies `count` random mutations to `bytes`; `other` is a second input for splicing.
    static func mutate(_ bytes: [UInt8], count: Int, other: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var out = bytes
        for _ in 0..<count { mutateOnce(&out, other: other, &rng) }
        return out
    }

    private static func mutateOnce(_ out: inout [UInt8], other: [UInt8], _ rng: inout SplitMix64) {
        let n = out.count
        switch rng.below(14) {
        case 0 where n > 0:  // flip a bit
            out[rng.below(n)] ^= 1 << UInt8(rng.below(8))
        case 1 where n > 0:  // set an interesting byte
            out[rng.below(n)] = rng.pick(interestingBytes)
        case 2:  // insert random bytes
            out.insert(contentsOf: rng.bytes(1 + rng.size(upTo: 16)), at: rng.below(n + 1))
        case 3:  // insert a token
            out.insert(contentsOf: rng.pick(tokens), at: rng.below(n + 1))
        case 4 where n > 0:  // delete a range
            let start = rng.below(n)
            out.removeSubrange(start..<min(n, start + 1 + rng.size(upTo: 32)))
        case 5 where n > 0:  // duplicate a range in place (repeats a member, a bracket, an escape ...)
            let start = rng.below(n), end = min(n, start + 1 + rng.size(upTo: 64))
            out.insert(contentsOf: out[start..<end], at: rng.below(n + 1))
        case 6 where n > 0:  // truncate
            out.removeSubrange(rng.below(n)..<n)
        case 7 where n > 1:  // swap two bytes
            out.swapAt(rng.below(n), rng.below(n))
        case 8 where !other.isEmpty:  // splice: our head, the other input's tail
            let cut = rng.below(n + 1), from = rng.below(other.count)
            out = Array(out[0..<cut]) + other[from...]
        case 9 where n > 0:  // overwrite a range with one repeated byte
            let start = rng.below(n), end = min(n, start + 1 + rng.size(upTo: 32))
            let fill = rng.pick(interestingBytes)
            for i in start..<end { out[i] = fill }
        case 10 where n > 0:  // change a digit run: a byte in 0-9 becomes another digit or a sign
            let i = rng.below(n)
            out[i] = rng.pick(Array("0123456789-+eE.".utf8))
        case 11 where n > 0:  // replace a byte with a multi-byte or invalid UTF-8 sequence
            let i = rng.below(n)
            out.replaceSubrange(i...i, with: rng.pick(nonASCIITokens))
        case 12 where n > 0:  // add or remove whitespace (the log is compact; JSON allows it)
            out.insert(rng.pick([0x20, 0x09, 0x0D, 0x0A, 0x0C, 0x0B, 0xA0]), at: rng.below(n + 1))
        case 13 where n > 1:  // swap two ranges' order by rotating
            let cut = 1 + rng.below(n - 1)
            out = Array(out[cut...] + out[..<cut])
        default:
            out.append(rng.byte())
        }
    }
}
