import LedgerDomain

// MARK: - Specials

/// Fixed hostile inputs run before the random ones, each with the answer it must get.
struct Special {
    /// What must happen.
    enum Expectation {
        /// `JSONReader.parse` returns a value.
        case parses
        /// `JSONReader.parse` throws a `JSONError` whose reason contains the text.
        case refused(String)
        /// A log line that must decode and check as an event right after its predecessor.
        case validLine
    }

    let name: String
    let bytes: [UInt8]
    let expectation: Expectation

    /// The list; `line` is a valid log line used as a frame for the big members.
    static func all(line: [UInt8], decoder: DecoderTarget) -> [Special] {
        func text(_ s: String) -> [UInt8] { Array(s.utf8) }
        func nested(_ depth: Int, open: String, close: String) -> [UInt8] {
            Array(Array(repeating: text(open), count: depth).joined()) + Array(Array(repeating: text(close), count: depth).joined())
        }
        let deepArrays = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let deepObjects = Array(Array(repeating: text("{\"a\":"), count: 100_000).joined())
        let manyDigits = [UInt8](repeating: UInt8(ascii: "7"), count: 10_000_000)
        let tinyFraction = text("0.") + [UInt8](repeating: UInt8(ascii: "0"), count: 1_000_000) + text("1")
        let bigString = text("\"") + [UInt8](repeating: UInt8(ascii: "x"), count: 8 << 20) + text("\"")
        let escapes = text("\"") + Array(Array(repeating: text("\\u00e9\\ud83d\\ude00\\n"), count: 100_000).joined()) + text("\"")
        let longArray = text("[") + Array(Array(repeating: text("0,"), count: 500_000).joined()) + text("0]")
        let nestedArrays = nested(JSONReader.maxDepth, open: "[", close: "]")
        return [
            Special(name: "100000-deep [[[[", bytes: deepArrays, expectation: .refused("nesting deeper than")),
            Special(name: "100000-deep {\"a\":{\"a\":", bytes: deepObjects, expectation: .refused("nesting deeper than")),
            Special(name: "arrays nested to the limit", bytes: nestedArrays, expectation: .parses),
            Special(name: "arrays nested one past the limit", bytes: text("[") + nestedArrays + text("]"), expectation: .refused("nesting deeper than")),
            Special(name: "objects nested one past the limit", bytes: nested(JSONReader.maxDepth + 1, open: "{\"a\":", close: "}"), expectation: .refused("nesting deeper than")),
            Special(name: "1e400", bytes: text("1e400"), expectation: .refused("unrepresentable number")),
            Special(name: "-1e400", bytes: text("-1e400"), expectation: .refused("unrepresentable number")),
            Special(name: "1e-400 (underflows to 0)", bytes: text("1e-400"), expectation: .parses),
            Special(name: "99999999999999999999999", bytes: text("99999999999999999999999"), expectation: .parses),
            Special(name: "-9223372036854775809", bytes: text("-9223372036854775809"), expectation: .parses),
            Special(name: "10 MB of digits", bytes: manyDigits, expectation: .refused("unrepresentable number")),
            Special(name: "a fraction of 1 MB of zeros", bytes: tinyFraction, expectation: .parses),
            Special(name: "lone high surrogate", bytes: text("\"\\ud800\""), expectation: .refused("unpaired surrogate")),
            Special(name: "lone low surrogate", bytes: text("\"\\udc00\""), expectation: .refused("unpaired surrogate")),
            Special(name: "high surrogate then a letter", bytes: text("\"\\ud800\\u0041\""), expectation: .refused("unpaired surrogate")),
            Special(name: "surrogate pair", bytes: text("\"\\ud83d\\ude00\""), expectation: .parses),
            Special(name: "byte FF in a string", bytes: text("\"a") + [0xFF] + text("\""), expectation: .refused("invalid UTF-8")),
            Special(name: "overlong NUL C0 80", bytes: text("\"") + [0xC0, 0x80] + text("\""), expectation: .refused("invalid UTF-8")),
            Special(name: "UTF-8-encoded surrogate ED A0 80", bytes: text("\"") + [0xED, 0xA0, 0x80] + text("\""), expectation: .refused("invalid UTF-8")),
            Special(name: "truncated UTF-8 E2 82", bytes: text("\"") + [0xE2, 0x82] + text("\""), expectation: .refused("invalid UTF-8")),
            Special(name: "invalid UTF-8 in a member name", bytes: text("{\"") + [0xFE] + text("\":1}"), expectation: .refused("invalid UTF-8")),
            Special(name: "raw NUL in a string", bytes: text("\"a") + [0x00] + text("\""), expectation: .refused("control character")),
            Special(name: "NUL after the value", bytes: text("{}") + [0x00], expectation: .refused("unexpected data after the value")),
            Special(name: "\\u0000 escape", bytes: text("\"\\u0000\""), expectation: .parses),
            Special(name: "empty input", bytes: [], expectation: .refused("unexpected end of input")),
            Special(name: "200000 distinct members", bytes: JSONGen.wideObject(200_000, duplicateLast: false), expectation: .parses),
            Special(name: "200000 members, the last repeated", bytes: JSONGen.wideObject(200_000, duplicateLast: true), expectation: .refused("duplicate member")),
            Special(name: "500001-element array", bytes: longArray, expectation: .parses),
            Special(name: "300000 escapes", bytes: escapes, expectation: .parses),
            Special(name: "8 MB string in data", bytes: decoder.adding("pad", bigString, toDataOf: line), expectation: .validLine),
            Special(name: "200000 extra members in data", bytes: decoder.adding("pad", JSONGen.wideObject(200_000, duplicateLast: false), toDataOf: line), expectation: .validLine),
            Special(name: "500001-element array in data", bytes: decoder.adding("pad", longArray, toDataOf: line), expectation: .validLine),
            Special(name: "arrays nested to the limit in data", bytes: decoder.adding("pad", Array(nested(JSONReader.maxDepth - 2, open: "[", close: "]")), toDataOf: line), expectation: .validLine),
        ]
    }

    /// Checks the expectation; nil when met.
    func verify(decoder: DecoderTarget, _ rng: inout SplitMix64) -> [String] {
        switch expectation {
        case .parses, .refused:
            var outcome: String?
            do {
                _ = try JSONReader.parse(bytes)
                if case .refused(let reason) = expectation { outcome = "parsed; expected a refusal (\(reason))" }
            } catch {
                if case .refused(let reason) = expectation {
                    if !error.reason.contains(reason) { outcome = "refused with \"\(error.reason)\"; expected \"\(reason)\"" }
                } else {
                    outcome = "refused (\(error)); expected a value"
                }
            }
            return (outcome.map { ["\(name): \($0)"] } ?? []) + decoder.run(bytes, &rng).map { "\(name): \($0)" }
        case .validLine:
            return decoder.run(bytes, valid: true, &rng).map { "\(name): \($0)" }
        }
    }
}
