import LedgerDomain
import LedgerKit
import Testing

/// `PersonalDataErased`, the one type no shipped sample log holds (they are data version 1 and stay
/// byte for byte as generated): its `data` spelled out, through the codec and back, and a line of it
/// through the schemas, the independent verifier and ledger's.
struct PersonalDataErasedSampleTests {
    static let uid = "a808bd42-6001-5835-a8dc-eaf62aa0980b"
    /// The `data` of an erasure by an account's deletion, exactly as written.
    static let data = #"{"uid":"a808bd42-6001-5835-a8dc-eaf62aa0980b","subject":"account-a808bd42-6001-5835-a8dc-eaf62aa0980b","reason":"account-deleted"}"#

    /// `text` decoded as the `data` of a `PersonalDataErased`.
    private func decode(_ text: String) throws -> LedgerEvent {
        let object = try #require(try JSONReader.parse(Array(text.utf8)).objectValue)
        return try LedgerEvent.decode(type: .personalDataErased, data: object)
    }

    @Test func dataIsWrittenInTheCatalogueOrderAndReadBack() throws {
        let event = LedgerEvent.personalDataErased(PersonalDataErased(uid: Self.uid, reason: .accountDeleted))
        #expect(event.type.category == .account)
        #expect(JSONWriter.string(.object(event.data)) == Self.data)
        #expect(try decode(Self.data) == event)
        let byOperator = LedgerEvent.personalDataErased(PersonalDataErased(uid: Self.uid, reason: .operator))
        #expect(try decode(Self.data.replacingAll(#""account-deleted""#, with: #""operator""#)) == byOperator)
        // It names the subject, never the data: no member is personal.
        #expect(PersonalMembers.rule(for: .personalDataErased) == nil)
    }

    @Test(arguments: [
        (#""subject":"account-a808bd42"#, #""subject":"address-2026-11-29","x":"-"#),  // another kind of subject
        (#""account-a808bd42-6001-5835-a8dc-eaf62aa0980b","reason""#, #""account-00000000-0000-4000-8000-000000000001","reason""#),  // another account's
        (#""account-deleted""#, #""user-request""#),  // not a reason of erasure
        (#","subject":"account-a808bd42-6001-5835-a8dc-eaf62aa0980b""#, ""),  // no subject
    ])
    func dataThatDoesNotHoldIsRefused(_ edit: (from: String, to: String)) throws {
        let text = Self.data.replacingAll(edit.from, with: edit.to)
        #expect(text != Self.data)
        #expect(throws: EventDataError.self) { try decode(text) }
    }

    @Test func aLineOfItSatisfiesTheSchemasAndBothVerifiers() throws {
        try withTempDirectory { dir in
            let store = InMemoryEventStore(clock: FixedClock(step: 1000), random: SeededRandom(seed: 5))
            let stream = StreamCategory.account.stream(Self.uid)
            _ = try store.append([.accountDeleted(AccountDeleted(uid: Self.uid, reason: .operator)),
                                  .personalDataErased(PersonalDataErased(uid: Self.uid, reason: .operator))], to: stream, expected: .noStream)
            let path = "\(dir)/events.jsonl"
            try writeBytes(store.log, to: path)
            #expect(String(decoding: splitLines(store.log)[1], as: UTF8.self)
                .contains(#","type":"PersonalDataErased","v":1,"stream":"\#(stream)","batch":[2,2],"data":\#(Self.data.replacingAll("account-deleted", with: "operator"))"#))
            let schemas = try pythonTool("validate_samples.py", [path])
            #expect(schemas.status == 0 && schemas.stdoutLines.last == "validated 2 lines in 1 files", "\(schemas)")
            let head = try store.head()
            #expect(try pythonTool("verify_log.py", [path]).stdoutLines == ["ok 2 2 \(head.hash)"])
            let report = try LogVerifier.verify(path: path)
            #expect(report.ok && report.head == head, "\(report)")
        }
    }
}
