import LedgerKit
import Testing

// `follow()`: the log's events from its first line, then each appended since, verified, in order.

@Suite struct LedgerFollowTests {
    @Test(arguments: LibraryStore.allCases)
    func followGivesTheLogThenWhatIsAppended(_ store: LibraryStore) async throws {
        let place = try store.place("library-follow")
        defer { place.remove() }
        let ledger = try await Ledger.open(place.configuration)
        _ = try await ledger.register(email: "first@example.com", password: "correct horse battery", userName: "First")
        let before = try await ledger.head().seq
        var seen: [Ledger.LoggedEvent] = []
        for try await event in ledger.follow(poll: .milliseconds(20)) {
            seen.append(event)
            // Once the log so far is given, another registration is appended: the sequence goes on with it.
            if event.seq == before {
                _ = try await ledger.register(email: "second@example.com", password: "correct horse battery", userName: "Second")
            }
            if event.type == "SessionStarted" && event.seq > before { break }
        }
        #expect(seen.map(\.seq) == Array(1...seen.count))
        #expect(seen.filter { $0.type == "AccountCreated" }.count == 2)
        #expect(seen.allSatisfy { $0.line.contains("\"seq\":\($0.seq)") })
        await ledger.close()
    }

    @Test func aDamagedLineEndsTheSequenceWithDamaged() async throws {
        let place = try LibraryStore.file.place("library-follow-damage")
        defer { place.remove() }
        let ledger = try await Ledger.open(place.configuration)
        _ = try await ledger.register(email: "dan@example.com", password: "correct horse battery", userName: "Dan")
        let log = place.folder.path + "/events.jsonl"
        var bytes = try readBytes(log)
        let at = try #require(bytes.firstIndex(of: UInt8(ascii: "T")))
        bytes[at] = UInt8(ascii: "U")
        try writeBytes(bytes, to: log)
        var given = 0
        await #expect { for try await _ in ledger.follow(poll: .milliseconds(20)) { given += 1 } } throws: {
            ($0 as? LedgerError)?.code == .damaged
        }
        #expect(given == 0)
        await ledger.close()
    }
}
