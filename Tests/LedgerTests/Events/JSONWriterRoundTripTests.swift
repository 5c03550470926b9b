import LedgerDomain
import Testing

/// What `JSONWriter` writes, `JSONReader` reads back as the same value; and the writer's exact output.
struct JSONWriterRoundTripTests {
    @Test(arguments: [10, 20, 30] as [UInt64])
    func generatedValuesRoundTrip(seed: UInt64) throws {
        let generator = JSONGenerator(random: SeededRandom(seed: seed))
        for _ in 0..<300 {
            let value = generator.value(depth: 5)
            let bytes = JSONWriter.bytes(value)
            let back = try JSONReader.parse(bytes)
            #expect(back == value.asWrittenAndRead, "\(String(decoding: bytes, as: UTF8.self))")
            #expect(JSONWriter.bytes(back) == bytes, "writing what was read gives the same bytes")
            #expect(!bytes.contains(0x0A), "compact: one line")
        }
    }

    @Test func compactOutput() {
        let value = JSONValue.object(JSONObject([("b", .array([.int(1), .double(2.5), .null, .bool(true)])), ("a", .string("x"))]))
        #expect(JSONWriter.string(value) == #"{"b":[1,2.5,null,true],"a":"x"}"#)
        #expect(JSONWriter.string(.array([])) == "[]")
        #expect(JSONWriter.string(.object(JSONObject())) == "{}")
        #expect(JSONWriter.string(.int(Int.min)) == "-9223372036854775808")
    }

    @Test func stringEscapes() {
        #expect(JSONWriter.string(.string("q\"b\\s/")) == #""q\"b\\s/""#, "slash is not escaped")
        #expect(JSONWriter.string(.string("\n\r\t\u{08}\u{0C}")) == #""\n\r\t\b\f""#)
        #expect(JSONWriter.string(.string("\u{0}\u{1}\u{1F}\u{7F}")) == "\"\\u0000\\u0001\\u001f\u{7F}\"")
        #expect(JSONWriter.string(.string("é€😀")) == "\"é€😀\"", "non-ASCII stays UTF-8, like ensure_ascii=False")
    }

    @Test func doubles() {
        #expect(JSONWriter.string(.double(2)) == "2", "integral doubles are written as integers")
        #expect(JSONWriter.string(.double(-0.5)) == "-0.5")
        #expect(JSONWriter.string(.double(1e300)) == "1e+300")
        #expect(JSONWriter.string(.double(.infinity)) == "null", "non-finite has no JSON form")
        #expect(JSONWriter.string(.double(.nan)) == "null")
    }

    /// Bytes the writer produces for the payload of every event match the log's form (the demo log's line 15).
    @Test func logLineBodyMatchesTheDemo() throws {
        let data = JSONObject([("sessionId", .string("d7db5d68-ca22-5988-96be-ff1e46ec0b22")),
                               ("uid", .string("a808bd42-6001-5835-a8dc-eaf62aa0980b")), ("reason", .string("logout"))])
        let expected = #"{"sessionId":"d7db5d68-ca22-5988-96be-ff1e46ec0b22","uid":"a808bd42-6001-5835-a8dc-eaf62aa0980b","reason":"logout"}"#
        #expect(JSONWriter.string(.object(data)) == expected)
        let demo = try readText(Paths.demoLog)
        #expect(demo.contains(#""data":"# + expected + #","prev""#))
    }
}
