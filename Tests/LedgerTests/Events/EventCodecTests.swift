import LedgerDomain
import LedgerKit
import Testing

/// Every event type through `data` and back, and through a whole log line and back.
struct EventCodecTests {
    @Test(arguments: EventType.allCases)
    func dataRoundTrips(type: LedgerDomain.EventType) throws {
        for n in [1, 2] {
            let event = Fixtures.event(type, n)
            #expect(event.type == type)
            let decoded = try LedgerEvent.decode(type: type, data: event.data)
            #expect(decoded == event)
            // Through the JSON text too.
            let text = JSONWriter.bytes(.object(event.data))
            let parsed = try #require(try JSONReader.parse(text).objectValue)
            #expect(try LedgerEvent.decode(type: type, data: parsed) == event)
        }
    }

    @Test(arguments: EventType.allCases)
    func lineRoundTrips(type: LedgerDomain.EventType) throws {
        let event = Fixtures.event(type, 3)
        let at = Timestamp(rfc3339: "2026-11-29T09:00:00.123Z")!
        let id = Fixtures.uuid(77), stream = Fixtures.stream(for: type, 5), prev = Fixtures.hex64(9)
        let body = LineCodec.body(seq: 42, id: id, at: at, type: type.rawValue, v: type.currentVersion, stream: stream,
                                  data: event.data, prev: prev)
        let hash = SHA256.hex(body)
        let line = LineCodec.line(body: body, hash: hash)
        #expect(line.last == 0x0A)
        #expect(line.filter { $0 == 0x0A }.count == 1, "exactly one newline, at the end")
        let (envelope, bodyLength) = try Array(line.dropLast()).withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: 1) }
        #expect(envelope == Envelope(seq: 42, id: id, at: at, type: type.rawValue, v: 1, stream: stream, data: event.data, prev: prev, hash: hash))
        #expect(bodyLength == body.count)
        #expect(try LedgerEvent.decode(type: type, data: envelope.data) == event)
        // The members are in the v1 order, hash last.
        let keys = try JSONReader.parse(Array(line.dropLast())).objectValue?.keys
        #expect(keys == ["seq", "id", "at", "type", "v", "stream", "data", "prev", "hash"])
        // The chain checker accepts it as a first line continuing after seq 41.
        var checker = ChainChecker(continuingAfter: Head(seq: 41, hash: prev))
        #expect(try checker.check(envelope, bodyHash: hash).event == event)
    }

    /// A real line of the demo log decodes, and its hash is the SHA-256 of the bytes before `,"hash":"`.
    @Test func demoLine15() throws {
        let lines = splitLines(try readBytes(Paths.demoLog))
        let line = Array(lines[14].dropLast())
        let (envelope, bodyLength) = try line.withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: 15) }
        #expect(envelope.seq == 15)
        #expect(envelope.type == "SessionEnded")
        #expect(envelope.hash == "4f9a34b7f48bce14c9a70dbea565696d8487b2b14e7674957ac41930e865e33a")
        #expect(SHA256.hex(Array(line[0..<bodyLength])) == envelope.hash)
        let body = LineCodec.body(seq: envelope.seq, id: envelope.id, at: envelope.at, type: envelope.type, v: envelope.v,
                                  stream: envelope.stream, data: envelope.data, prev: envelope.prev)
        #expect(body == Array(line[0..<bodyLength]), "re-encoding gives the same bytes")
    }

    /// Envelopes the v1 format forbids are `invalid-json`: wrong member order, missing or extra members, bad forms.
    @Test func malformedEnvelopesAreInvalidJSON() throws {
        let good = #"{"seq":1,"id":"36ec1060-f129-5378-ae1c-251603faac74","at":"2026-11-29T09:00:00.123Z","type":"SignInFailed","v":1,"stream":"signin-3aceca44-e332-51df-be16-d613d3befa8b","data":{"email":"a@b","reason":"locked"},"prev":"0000000000000000000000000000000000000000000000000000000000000000""#
        let hash = #","hash":"81899e77b04d784eff0dbc037684322f24f7e7e7f1e520a807dd7464c067e8c2"}"#
        func decodes(_ text: String) -> Bool {
            (try? Array(text.utf8).withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: 1) }) != nil
        }
        #expect(decodes(good + hash))
        let bad = [
            good.replacingAll(#""seq":1,"id":"36ec1060-f129-5378-ae1c-251603faac74""#, with: #""id":"36ec1060-f129-5378-ae1c-251603faac74","seq":1"#) + hash,
            good.replacingAll(#","v":1"#, with: "") + hash,
            good.replacingAll(#""seq":1"#, with: #""seq":1,"extra":0"#) + hash,
            good.replacingAll(#""seq":1"#, with: #""seq":1.0"#) + hash,
            good.replacingAll(#""seq":1"#, with: #""seq":0"#) + hash,
            good.replacingAll("36ec1060", with: "36EC1060") + hash,
            good.replacingAll(".123Z", with: "Z") + hash,
            good.replacingAll("signin-", with: "login-") + hash,
            good.replacingAll(#""data":{"email":"a@b","reason":"locked"}"#, with: #""data":[]"#) + hash,
            good + hash.replacingAll(#","hash""#, with: #", "hash""#),
            good + hash.replacingAll("8c2\"}", with: "8C2\"}"),
            good + #","hash":"81899e77b04d784eff0dbc037684322f24f7e7e7f1e520a807dd7464c067e8c2","x":1}"#,
            good + hash + " ",
            "[" + good + hash + "]",
            "",
        ]
        for text in bad {
            let problem = try #require(throws: LogProblem.self) {
                try Array(text.utf8).withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: 4) }
            }
            #expect(problem.kind == .invalidJSON, "\(text)")
            #expect(problem.line == 4)
        }
    }
}
