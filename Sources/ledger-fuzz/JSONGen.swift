#if canImport(LedgerDomain)
import LedgerDomain
#endif

// MARK: - JSONGen

/// Generates JSON text (and near-JSON text) aimed at the reader's edges: deep nesting, numbers
/// beyond `Int` and `Double`, escapes with lone surrogates, invalid UTF-8, NULs and very long strings.
enum JSONGen {
    /// Numbers at and past the edges, valid and not.
    static let numbers: [String] = [
        "0", "-0", "1", "-1", "0.5", "-0.0", "1e400", "-1e400", "1E+400", "1e-400", "-1e-400", "1e308", "1.7976931348623157e308",
        "1.7976931348623159e308", "4.9e-324", "2.4e-324", "2.2250738585072014e-308", "99999999999999999999999",
        "-99999999999999999999999", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "1e15", "999999999999999", "1000000000000000.5", "0.1e1",
        "1e+0", "1E-0", "123456789012345678901234567890e-30",
        // Not JSON:
        "01", "-", "1.", ".5", "+1", "1e", "1e+", "0x10", "1_000", "NaN", "Infinity", "-Infinity", "--1", "1.2.3", "1ee5",
    ]

    /// A number: one of `numbers`, or a long random digit string with optional fraction and exponent.
    static func number(_ rng: inout SplitMix64) -> [UInt8] {
        if rng.chance(60) { return Array(rng.pick(numbers).utf8) }
        var out: [UInt8] = rng.chance(30) ? [UInt8(ascii: "-")] : []
        out.append(UInt8(ascii: "1") + UInt8(rng.below(9)))
        out += digits(rng.size(upTo: 2000), &rng)
        if rng.chance(40) { out.append(UInt8(ascii: ".")); out += digits(1 + rng.size(upTo: 400), &rng) }
        if rng.chance(40) {
            out.append(rng.chance(50) ? UInt8(ascii: "e") : UInt8(ascii: "E"))
            if rng.chance(50) { out.append(rng.chance(50) ? UInt8(ascii: "+") : UInt8(ascii: "-")) }
            out += digits(1 + rng.size(upTo: 30), &rng)
        }
        return out
    }

    private static func digits(_ count: Int, _ rng: inout SplitMix64) -> [UInt8] {
        (0..<count).map { _ in UInt8(ascii: "0") + UInt8(rng.below(10)) }
    }

    /// A quoted string whose body mixes plain text, escapes (valid, lone surrogates, bad), raw
    /// non-ASCII (valid and invalid UTF-8) and raw control bytes.
    static func string(_ rng: inout SplitMix64, maxPieces: Int = 12) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for _ in 0..<rng.size(upTo: maxPieces) {
            switch rng.below(10) {
            case 0, 1, 2: out += Array("abcXYZ 09-_.@é€😀".utf8).shuffled(using: &rng).prefix(1 + rng.below(8))
            case 3: out += rng.pick(["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041", "\\u00e9", "\\u20ac", "\\u0000", "\\u001f"]).utf8
            case 4: out += rng.pick(["\\ud83d\\ude00", "\\udbff\\udfff", "\\uD800\\uDC00"]).utf8
            case 5: out += rng.pick(["\\ud800", "\\udc00", "\\ud800\\u0041", "\\ud800\\ud800", "\\udfff\\ud800", "\\ud800x", "\\u12", "\\u12g4", "\\x41", "\\a", "\\"]).utf8
            case 6: out += rng.pick(Mutator.nonASCIITokens)
            case 7: out.append(UInt8(rng.below(0x20)))  // raw control byte: not allowed unescaped
            case 8: out += [UInt8](repeating: rng.pick(Array("a\\é".utf8)), count: rng.size(upTo: 4096))
            default: out.append(0x80 | rng.byte())  // a stray byte >= 0x80
            }
        }
        if rng.chance(97) { out.append(UInt8(ascii: "\"")) }
        return out
    }

    /// A JSON-like value, nesting at most `depth` more levels.
    static func value(_ rng: inout SplitMix64, depth: Int) -> [UInt8] {
        switch depth <= 0 ? rng.below(5) : rng.below(8) {
        case 0: return number(&rng)
        case 1: return string(&rng)
        case 2: return Array(rng.pick(["null", "true", "false", "nul", "tru", "False", "NULL"]).utf8)
        case 3: return number(&rng)
        case 4: return string(&rng)
        case 5, 6: // object, sometimes with a duplicate member, a trailing comma or a missing colon
            var members: [[UInt8]] = []
            for _ in 0..<rng.size(upTo: 6) {
                members.append(string(&rng, maxPieces: 3) + Array(":".utf8) + value(&rng, depth: depth - 1))
            }
            if let first = members.first, rng.chance(15) { members.append(first) }
            var out = [UInt8(ascii: "{")] + members.joined(separator: [UInt8(ascii: ",")])
            if rng.chance(5) { out.append(UInt8(ascii: ",")) }
            if rng.chance(97) { out.append(UInt8(ascii: "}")) }
            return out
        default:
            var out = [UInt8(ascii: "[")]
            out += (0..<rng.size(upTo: 6)).map { _ in value(&rng, depth: depth - 1) }.joined(separator: [UInt8(ascii: ",")])
            if rng.chance(5) { out.append(UInt8(ascii: ",")) }
            if rng.chance(97) { out.append(UInt8(ascii: "]")) }
            return out
        }
    }

    /// `depth` opening brackets (arrays, objects or a mix), usually closed again.
    static func deep(_ depth: Int, _ rng: inout SplitMix64) -> [UInt8] {
        let style = rng.below(3)
        var open: [UInt8] = [], close: [UInt8] = []
        open.reserveCapacity(depth * 5)
        for level in 0..<depth {
            let object = style == 1 || (style == 2 && level % 2 == 1)
            if object { open += Array("{\"a\":".utf8); close.append(UInt8(ascii: "}")) } else { open.append(UInt8(ascii: "[")); close.append(UInt8(ascii: "]")) }
        }
        let inner: [UInt8] = rng.chance(50) ? Array("1".utf8) : []
        let closed = rng.chance(80) ? Array(close.reversed()) : Array(close.reversed().prefix(rng.below(depth + 1)))
        return open + inner + closed
    }

    /// An object with `count` distinct members (`{"k0":0,"k1":0,...}`): wide rather than deep.
    static func wideObject(_ count: Int, duplicateLast: Bool) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(count * 12)
        for i in 0..<count {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += Array("\"k\(i)\":0".utf8)
        }
        if duplicateLast && count > 0 { out += Array(",\"k\(count - 1)\":1".utf8) }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
