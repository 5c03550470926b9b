import Foundation
import LedgerKit
import Testing

// `verify()` and `anomalies()` through the library: what `ledger verify` and `ledger audit` find.

@Suite struct LedgerChecksTests {
    @Test func verifyFindsAnEditedLineAndAWrongRecordedHead() async throws {
        let place = try LibraryStore.file.place("library-verify")
        defer { place.remove() }
        let ledger = try await Ledger.open(place.configuration)
        _ = try await ledger.register(email: "vera@example.com", password: "correct horse battery", userName: "Vera")
        let head = try await ledger.head()
        let clean = try await ledger.verify(expecting: [head])
        #expect(clean.ok && clean.events == head.seq && clean.head == head)
        let wrong = try await ledger.verify(expecting: [Ledger.Head(seq: head.seq, hash: String(repeating: "0", count: 64))])
        #expect(wrong.problems.map(\.kind) == ["head-mismatch"])
        // One byte of the first line changed: its hash no longer checks.
        let log = place.folder.path + "/events.jsonl"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: log)))
        let at = try #require(bytes.firstIndex(of: UInt8(ascii: "T")))
        bytes[at] = UInt8(ascii: "U")
        try Data(bytes).write(to: URL(fileURLWithPath: log))
        let damaged = try await ledger.verify()
        #expect(!damaged.ok && damaged.problems.first?.line == 1, "\(damaged)")
        await ledger.close()
    }

    @Test(arguments: LibraryStore.allCases)
    func anomaliesNameAnImageFileNoEventOwns(_ store: LibraryStore) async throws {
        let place = try store.place("library-audit")
        defer { place.remove() }
        let ledger = try await Ledger.open(place.configuration)
        _ = try await ledger.register(email: "ana@example.com", password: "correct horse battery", userName: "Ana")
        #expect(try await ledger.anomalies().isEmpty)
        let orphan = UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: place.folder.path + "/profile_image", withIntermediateDirectories: true)
        try Data([0xFF, 0xD8, 0xFF]).write(to: URL(fileURLWithPath: place.folder.path + "/profile_image/" + orphan))
        let found = try await ledger.anomalies()
        #expect(found.map(\.kind) == ["orphan-image-file"] && found.first?.value == orphan, "\(found)")
        await ledger.close()
    }
}
