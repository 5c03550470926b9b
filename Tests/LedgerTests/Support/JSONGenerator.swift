import LedgerDomain

// MARK: - JSONGenerator

/// Random JSON values and encodings for the JSON tests, from a seeded generator (reproducible).
struct JSONGenerator {
    let random: SeededRandom

    /// Characters strings are built from: escapes, controls, multi-byte, astral, combining and noncharacters.
    static let characters: [Character] = Array("abcxyzABC019 _-/.:,{}[]\"\\\u{7F}éßñ€\u{2028}\u{FEFF}\u{FFFD}\u{FFFF}😀𝄞\u{10FFFF}中文")
        + [Character("\u{0}"), "\u{1}", "\u{8}", "\t", "\n", "\u{C}", "\r", "\u{1B}", "\u{1F}"]

    /// A random string of 0...`maxLength` characters.
    func string(maxLength: Int = 12) -> String {
        String((0..<random.next(maxLength + 1)).map { _ in random.pick(Self.characters) })
    }

    /// A random number: small and large integers, the Int limits, decimals and arbitrary finite doubles.
    func number() -> JSONValue {
        switch random.next(8) {
        case 0: return .int(random.next(201) - 100)
        case 1: return .int(Int(truncatingIfNeeded: random.next()))
        case 2: return .int(random.pick([Int.min, Int.max, 0, -1, 1 << 53, -(1 << 53) - 1]))
        case 3: return .double(Double(random.next(2_000_001) - 1_000_000) / 1000)
        case 4: return .double(random.pick([0.1, -2.5, 1e-300, 1e300, Double.leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                            1e15, 1e16, 123_456.789e10, 2.2250738585072014e-308]))
        case 5:
            let value = Double(bitPattern: random.next())
            return .double(value.isFinite ? value : 1.5)
        case 6: return .double(Double(random.next(1000)) * pow10(random.next(40) - 20))
        default: return .int(random.next(10))
        }
    }

    private func pow10(_ exponent: Int) -> Double {
        var value = 1.0
        for _ in 0..<abs(exponent) { value = exponent < 0 ? value / 10 : value * 10 }
        return value
    }

    /// A random value nested at most `depth` levels.
    func value(depth: Int = 4) -> JSONValue {
        let pick = depth <= 0 ? random.next(4) : random.next(7)
        switch pick {
        case 0: return random.oneIn(2) ? .null : .bool(random.oneIn(2))
        case 1: return number()
        case 2, 3: return .string(string())
        case 4: return .array((0..<random.next(5)).map { _ in value(depth: depth - 1) })
        default: return .object(object(depth: depth))
        }
    }

    /// A random object with unique keys (unique as Swift compares strings: canonically equivalent keys count as one).
    func object(depth: Int = 4) -> JSONObject {
        var keys = Set<String>()
        var members: [(String, JSONValue)] = []
        for _ in 0..<random.next(6) {
            let key = string(maxLength: 6)
            guard keys.insert(key).inserted else { continue }
            members.append((key, value(depth: depth - 1)))
        }
        return JSONObject(members)
    }

    // MARK: - Another writer

    /// An independent encoding of `value`: every non-ASCII scalar as `\uXXXX` (astral ones as surrogate pairs),
    /// random hex case, `\/` for some slashes, and random whitespace between tokens.
    func escapedText(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out)
        return out
    }

    private func space(_ out: inout [UInt8]) {
        for _ in 0..<(random.oneIn(3) ? random.next(3) : 0) { out.append(random.pick([0x20, 0x09, 0x0A, 0x0D])) }
    }

    private func write(_ value: JSONValue, into out: inout [UInt8]) {
        space(&out)
        switch value {
        case .null, .bool, .int, .double:
            out += JSONWriter.bytes(value)
        case .string(let text):
            writeString(text, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(element, into: &out)
            }
            space(&out)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                space(&out)
                writeString(member.key, into: &out)
                space(&out)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out)
            }
            space(&out)
            out.append(UInt8(ascii: "}"))
        }
        space(&out)
    }

    private func writeString(_ text: String, into out: inout [UInt8]) {
        let upper = random.oneIn(2)
        func hex4(_ unit: UInt16) {
            let digits = Array((upper ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
            out += [0x5C, UInt8(ascii: "u")] + [12, 8, 4, 0].map { digits[Int(unit >> UInt16($0) & 0xF)] }
        }
        out.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += [0x5C, 0x22]
            case "\\": out += [0x5C, 0x5C]
            case "/": out += random.oneIn(2) ? [0x5C, 0x2F] : [0x2F]
            case "\n": out += [0x5C, UInt8(ascii: "n")]
            default:
                if scalar.value < 0x20 || scalar.value > 0x7E {
                    for unit in String(scalar).utf16 { hex4(unit) }
                } else {
                    out.append(UInt8(scalar.value))
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: - Mutations

    /// Bytes and fragments mutations insert: structure, number parts, escapes, and bytes invalid in UTF-8.
    static let fragments: [[UInt8]] = [
        "{", "}", "[", "]", ":", ",", "\"", "\\", "0", "1", "9", "-", "+", ".", "e", "E", "t", "f", "n", "u", " ",
        "\\u", "\\ud800", "\\udc00", "\\u00", "1e999", "true", "null", "\"\"", "[]", "{}", "\"a\":1", ",]",
    ].map { Array($0.utf8) } + [[0x00], [0x01], [0x1F], [0x7F], [0x80], [0xBF], [0xC0], [0xC3], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF0],
                                [0xF4, 0x90], [0xF5], [0xFF], [0xEF, 0xBB, 0xBF]]

    /// `bytes` with 1–3 random mutations: bit flips, byte replacements, truncations, insertions, deletions, slice copies.
    func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        for _ in 0...random.next(3) {
            guard !out.isEmpty else { return random.pick(Self.fragments) }
            let at = random.next(out.count)
            switch random.next(7) {
            case 0: out[at] ^= UInt8(1) << UInt8(random.next(8))
            case 1: out[at] = random.pick(Self.fragments)[0]
            case 2: out = Array(out.prefix(at))
            case 3: out.insert(contentsOf: random.pick(Self.fragments), at: at)
            case 4: out.remove(at: at)
            case 5:
                let end = min(out.count, at + 1 + random.next(8))
                out.insert(contentsOf: out[at..<end], at: random.next(out.count + 1))
            default:
                out.swapAt(at, random.next(out.count))
            }
        }
        return out
    }
}

// MARK: - Comparing values

extension JSONValue {
    /// This value as the compact writer's text reads back: integral doubles below 1e15 become integers.
    var asWrittenAndRead: JSONValue {
        switch self {
        case .double(let d) where d == d.rounded() && abs(d) < 1e15: .int(Int(d))
        case .array(let elements): .array(elements.map(\.asWrittenAndRead))
        case .object(let object): .object(JSONObject(object.members.map { ($0.key, $0.value.asWrittenAndRead) }))
        default: self
        }
    }
}
