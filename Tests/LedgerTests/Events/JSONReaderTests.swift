import LedgerDomain
import Testing

/// The strict JSON reader: what it accepts, the values it gives, and what it rejects.
struct JSONReaderTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONReader.parse(text) }
    private func parse(_ bytes: [UInt8]) throws -> JSONValue { try JSONReader.parse(bytes) }
    private func rejects(_ bytes: [UInt8]) -> Bool { (try? JSONReader.parse(bytes)) == nil }
    private func rejects(_ text: String) -> Bool { rejects(Array(text.utf8)) }

    @Test func literalsAndContainers() throws {
        #expect(try parse("null") == .null)
        #expect(try parse("true") == .bool(true))
        #expect(try parse(" \t\r\nfalse \n") == .bool(false))
        #expect(try parse("[]") == .array([]))
        #expect(try parse("{}") == .object(JSONObject()))
        #expect(try parse(#"[1,"a",[null],{"k":{}}]"#)
                == .array([.int(1), .string("a"), .array([.null]), .object(JSONObject([("k", .object(JSONObject()))]))]))
        #expect(try parse(#" { "a" : 1 , "b" : [ true , false ] } "#)
                == .object(JSONObject([("a", .int(1)), ("b", .array([.bool(true), .bool(false)]))])))
    }

    @Test func objectsKeepSourceOrder() throws {
        let value = try parse(#"{"z":1,"a":2,"m":3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
    }

    @Test func escapes() throws {
        #expect(try parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{08}\u{0C}\n\r\t"))
        #expect(try parse(#""\u0041\u00e9\u20AC\u0000""#) == .string("Aé€\u{0}"))
        #expect(try parse(#""a\u000Ab""#) == .string("a\nb"))
        #expect(try parse("\"raw é € 😀\"") == .string("raw é € 😀"))
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"), "a surrogate pair is one scalar")
        #expect(try parse(#""\uD834\uDD1E!""#) == .string("𝄞!"))
        #expect(try parse(#""\uDBFF\uDFFF""#) == .string("\u{10FFFF}"))
        #expect(try parse(#""\uFFFF""#) == .string("\u{FFFF}"))
    }

    @Test(arguments: [#""\ud800""#, #""\ud800x""#, #""\ud800\u0041""#, #""\udc00""#, #""\ude00\ud83d""#, #""\ud83d\ud83d""#,
                      #""\ud83d\""#, #""\ud83d\u""#])
    func unpairedSurrogatesAreRejected(text: String) {
        #expect(rejects(text))
    }

    @Test(arguments: [#""\x""#, #""\u12""#, #""\u12G4""#, #""\U0041""#, "\"\\", "\"abc", "\"a\u{01}b\"", "\"tab\there\"", "\"a\nb\""])
    func badStringsAreRejected(text: String) {
        #expect(rejects(text))
    }

    @Test func numbers() throws {
        #expect(try parse("0") == .int(0))
        #expect(try parse("-0") == .int(0))
        #expect(try parse("42") == .int(42))
        #expect(try parse("-17") == .int(-17))
        #expect(try parse("9223372036854775807") == .int(Int.max))
        #expect(try parse("-9223372036854775808") == .int(Int.min))
        #expect(try parse("1.5") == .double(1.5))
        #expect(try parse("1.0") == .double(1.0), "a fraction makes a double even when integral")
        #expect(try parse("-2.5e3") == .double(-2500))
        #expect(try parse("1E+2") == .double(100))
        #expect(try parse("5e-324") == .double(.leastNonzeroMagnitude))
        #expect(try parse("1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
        #expect(try parse("1e-400") == .double(0), "underflow rounds to zero")
    }

    @Test func hugeNumbersBecomeDoubles() throws {
        #expect(try parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try parse("-9223372036854775809") == .double(Double(Int.min)), "rounds to -2^63")
        #expect(try parse("123456789012345678901234567890") == .double(1.2345678901234568e29))
        let digits = "1" + String(repeating: "0", count: 300)
        #expect(try parse(digits) == .double(1e300))
    }

    @Test(arguments: ["1e400", "-1e400", "1" + String(repeating: "0", count: 400), "1.8e308", "[1e999]"])
    func numbersBeyondDoubleAreRejected(text: String) {
        #expect(rejects(text))
    }

    @Test(arguments: ["01", "-01", "+1", ".5", "1.", "1.e5", "1e", "1e+", "-", "--1", "0x10", "1_000", "NaN", "Infinity", "-Infinity", "1 2"])
    func malformedNumbersAreRejected(text: String) {
        #expect(rejects(text))
    }

    @Test func duplicateKeysAreRejected() {
        #expect(rejects(#"{"a":1,"a":2}"#))
        #expect(rejects(#"{"a":1,"b":{"c":1,"c":1}}"#))
        #expect(rejects(#"{"a":1,"\u0061":2}"#), "the same key written with an escape")
        #expect(!rejects(#"{"a":{"a":1}}"#), "the same key at different levels is fine")
        #expect(!rejects(#"[{"a":1},{"a":2}]"#))
    }

    @Test func depthIsLimited() {
        let limit = JSONReader.maxDepth
        #expect(!rejects(String(repeating: "[", count: limit) + String(repeating: "]", count: limit)))
        #expect(rejects(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)))
        #expect(!rejects(String(repeating: #"{"a":"#, count: limit - 1) + "{}" + String(repeating: "}", count: limit - 1)))
        #expect(rejects(String(repeating: #"{"a":"#, count: limit) + "{}" + String(repeating: "}", count: limit)))
        // Far deeper input fails cleanly instead of exhausting the stack.
        #expect(rejects(String(repeating: "[", count: 100_000)))
        #expect(rejects(String(repeating: #"{"a":["#, count: 50_000)))
    }

    @Test func invalidUTF8IsRejected() {
        let bad: [[UInt8]] = [
            [0x22, 0xFF, 0x22],                    // never valid in UTF-8
            [0x22, 0xC3, 0x22],                    // truncated 2-byte sequence
            [0x22, 0xC0, 0xAF, 0x22],              // overlong "/"
            [0x22, 0xE0, 0x80, 0xAF, 0x22],        // overlong 3-byte
            [0x22, 0xED, 0xA0, 0x80, 0x22],        // a UTF-8-encoded surrogate (CESU)
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0x80, 0x22],                    // lone continuation byte
            [0x22, 0x5C, 0x6E, 0xFF, 0x22],        // invalid after an escape (slow path)
            [0xEF, 0xBB, 0xBF, 0x5B, 0x5D],        // a BOM is not whitespace
            [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D],  // invalid key
        ]
        for bytes in bad { #expect(rejects(bytes), "\(bytes)") }
        #expect(!rejects([0x22, 0xC3, 0xA9, 0x22]))
        #expect(!rejects([0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22]))
    }

    @Test(arguments: ["[1] x", "{} {}", "1 2", "nullx", "truefalse", "[1]]", "{\"a\":1}}", "\"a\"\"b\"", "[1]\u{0}", "0 ,"])
    func trailingGarbageIsRejected(text: String) {
        #expect(rejects(text))
    }

    @Test(arguments: ["", " ", "[", "]", "{", "[1,]", "[,1]", "[1 2]", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{a:1}", "{'a':1}", "['a']",
                      "{1:2}", "tru", "nul", "True", "[\"a\",]", "{\"a\" 1}", "[1,,2]", "\u{0B}[]", "/* */[]"])
    func malformedDocumentsAreRejected(text: String) {
        #expect(rejects(text))
    }

    @Test func errorsNameTheOffset() throws {
        let error = try #require(throws: JSONError.self) { try JSONReader.parse(#"{"a":1,"a":2}"#) }
        #expect(error.offset == 7)
        #expect(error.reason.contains("duplicate"))
        #expect(error.description.hasSuffix("at byte 8"))
    }
}
