import Foundation
import LedgerDomain
import LedgerKit
import Testing

// The key ring reads a few subjects one by one, then the whole key store once: every member still
// opens to its text, an erasure the ring learnt stays, and a key made after the load is found.

@Suite struct KeyRingLoadingTests {
    @Test func aRingThatLoadsTheWholeStoreOpensWhatItLookedUpOneByOne() throws {
        try withTempDirectory { dir in
            let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 3))
            let count = KeyRing.lookupsBeforeLoading + 20
            for n in 0..<count {
                _ = try store.append([Fixtures.event(.accountCreated, n)], to: Fixtures.stream(.registration, n), expected: .noStream)
            }
            let erased = SubjectID.account(UUIDBits(uuid: Fixtures.uuid(1000 + 5))!)
            try store.destroyKeys(of: [erased])
            // A ring of its own (not the process's shared one): it meets every subject once.
            let ring = KeyRing(directory: dir)
            var checker = ChainChecker(opener: ring)
            var emails: [String] = []
            try LogScanner.scan(try FileDescriptor(path: dir + "/events.jsonl", flags: O_RDONLY), checker: &checker) { item in
                if case .event(let event, _, _) = item, case .accountCreated(let created) = event.event { emails.append(created.email) }
                return true
            }
            #expect(emails.count == count)
            #expect(emails.filter(\.isEmpty).count == 1 && emails[5].isEmpty, "only the erased one")
            #expect(emails.enumerated().allSatisfy { $0.offset == 5 || $0.element == "user\($0.offset)@example.com" })
            // A key made after the ring loaded the store is found by a lookup of its own.
            _ = try store.append([Fixtures.event(.accountCreated, 500)], to: Fixtures.stream(.registration, 500), expected: .noStream)
            let line = Array(try #require(splitLines(try readBytes(dir + "/events.jsonl")).last).dropLast())
            let opened = line.withUnsafeBufferPointer { LineCodec.readInPlace($0, opener: ring) }
            guard case .accountCreated(_, let email, _)? = opened?.event.fact else { Issue.record("not read"); return }
            #expect(email == "user500@example.com")
        }
    }
}
