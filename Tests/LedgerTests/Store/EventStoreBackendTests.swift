import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - Backends

/// The backends the conformance suite runs against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `FileEventStore`, each store in a fresh folder of a temp directory.
    case file
    /// `FileEventStore` with its index file off (as with `LEDGER_STORE_INDEX=0`): stream versions and
    /// the account fold kept in memory.
    case fileWithoutIndex
    /// `InMemoryEventStore`, the test double.
    case memory
    /// `PostgresEventStore`, each store in a fresh database of the test server (`PostgresServer`).
    case postgres

    var testDescription: String { rawValue }

    /// Calls `body` with a factory of fresh stores; anything created on disk is removed afterwards.
    func withFactory(_ body: (EventStoreFactory) throws -> Void) throws {
        switch self {
        case .file:
            try withTempDirectory { root in
                var count = 0
                try body {
                    count += 1
                    return FileEventStore(directory: "\(root)/store-\(count)", clock: FixedClock(step: 1), random: SeededRandom(seed: 7))
                }
            }
        case .fileWithoutIndex:
            try withTempDirectory { root in
                var count = 0
                try body {
                    count += 1
                    let store = FileEventStore(directory: "\(root)/store-\(count)", clock: FixedClock(step: 1), random: SeededRandom(seed: 7))
                    store.indexFileDisabled = true
                    return store
                }
            }
        case .memory:
            try body { InMemoryEventStore(clock: FixedClock(step: 1), random: SeededRandom(seed: 7)) }
        case .postgres:
            let server = try PostgresServer.get()
            var databases: [PostgresURL] = []
            var made: [PostgresEventStore] = []
            defer {
                made.removeAll()  // close the connections before the databases are dropped
                databases.forEach(server.dropDatabase)
            }
            try body {
                let url = try server.createDatabase()
                databases.append(url)
                let store = PostgresEventStore(url: url, clock: FixedClock(step: 1), random: SeededRandom(seed: 7))
                try store.createSchema()
                made.append(store)
                return store
            }
        }
    }
}

// MARK: - EventStoreBackendTests

/// Runs every conformance check against every backend, and checks that the backends agree byte for byte.
struct EventStoreBackendTests {
    @Test(arguments: Backend.allCases, EventStoreConformance.Case.allCases)
    func conformance(backend: Backend, check: EventStoreConformance.Case) throws {
        try backend.withFactory { make in try check.run(make) }
    }

    /// Appends one event of every type and a batch of three to `store`.
    private func appendEveryType(_ store: any LedgerStore) throws {
        for (n, type) in EventType.allCases.enumerated() {
            _ = try store.append([Fixtures.event(type, n)], to: Fixtures.stream(for: type, n), expected: .noStream)
        }
        _ = try store.append([Fixtures.registration(50), Fixtures.event(.imageStored, 50), Fixtures.event(.profileWritten, 50)],
                             to: Fixtures.stream(.registration, 50), expected: .noStream)
    }

    /// With the same clock and randomness, the in-memory double holds exactly the bytes the file store
    /// writes in a folder of data version 1 (a log that holds lines and no key store): both continue
    /// the same first line.
    @Test func inMemoryLogIsByteIdenticalToAVersion1FileLog() throws {
        try withTempDirectory { dir in
            let first = InMemoryEventStore(clock: FixedClock(step: 250), random: SeededRandom(seed: 99))
            _ = try first.append([Fixtures.signIn(0)], to: Fixtures.stream(.signin, 1_000), expected: .noStream)
            try writeBytes(first.log, to: "\(dir)/events.jsonl")
            let file = FileEventStore(directory: dir, clock: FixedClock(step: 250), random: SeededRandom(seed: 3))
            #expect(file.dataVersion == 1)
            let memory = try InMemoryEventStore(log: first.log, clock: FixedClock(step: 250), random: SeededRandom(seed: 3))
            for store in [file, memory] as [any LedgerStore] { try appendEveryType(store) }
            #expect(!FileSystem.exists(file.keyStorePath), "the folder stays version 1")
            #expect(memory.log == (try readBytes(file.logPath)))
            #expect(try memory.head() == (try file.head()))
            #expect(try memory.readAll() == (try file.readAll()))
            // And the bytes verify as a log.
            let copy = "\(dir)/memory.jsonl"
            try writeBytes(memory.log, to: copy)
            let report = try LogVerifier.verify(path: copy)
            #expect(report.ok)
            #expect(report.events == EventType.allCases.count + 4)
        }
    }

    /// In a new folder (data version 2, whose personal members the file store encrypts), the in-memory
    /// double records the same events as the file store: the same seqs, types, streams and batches,
    /// and each line's data, opened with the folder's keys, is the double's.
    @Test func inMemoryEventsAreTheFileStoresInANewFolder() throws {
        try withTempDirectory { dir in
            let file = FileEventStore(directory: dir, clock: FixedClock(step: 250), random: SeededRandom(seed: 3))
            let memory = InMemoryEventStore(clock: FixedClock(step: 250), random: SeededRandom(seed: 3))
            for store in [file, memory] as [any LedgerStore] { try appendEveryType(store) }
            #expect(file.dataVersion == 2)
            let (stored, expected) = (try file.readAll(), try memory.readAll())
            #expect(stored.map(\.event) == expected.map(\.event))
            #expect(stored.map(\.seq) == expected.map(\.seq))
            #expect(stored.map(\.stream) == expected.map(\.stream))
            #expect(stored.map(\.envelope.batch) == expected.map(\.envelope.batch))
            #expect(stored.map(\.envelope.v) == expected.map { DataVersions.written($0.event.type, dataVersion: 2) })
            #expect(expected.allSatisfy { $0.envelope.v == 1 })
            let keys = FolderKeys(dir)
            for (line, plain) in zip(stored, expected) {
                #expect(try keys.opened(line.envelope) == plain.envelope.data, "line \(line.seq)")
            }
            #expect(try LogVerifier.verify(path: file.logPath).ok)
        }
    }

    /// A second file store over the same folder (another process, in effect) sees and continues the first one's log.
    @Test func fileStoresOverOneFolderShareTheLog() throws {
        try withTempDirectory { dir in
            let a = FileEventStore(directory: dir, clock: FixedClock(), random: SeededRandom(seed: 1))
            let b = FileEventStore(directory: dir, clock: FixedClock(), random: SeededRandom(seed: 2))
            let stream = Fixtures.stream(.registration, 1)
            _ = try a.append([Fixtures.registration(1)], to: stream, expected: .noStream)
            #expect(throws: StoreError.self) { try b.append([Fixtures.registration(1)], to: stream, expected: .noStream) }
            #expect(try b.append([Fixtures.event(.failed, 1)], to: stream, expected: .exactly(1)).map(\.seq) == [2])
            #expect(try a.head() == (try b.head()))
            #expect(try a.append([Fixtures.signIn(3)], to: Fixtures.stream(.signin, 3), expected: .noStream).map(\.seq) == [3])
            #expect(try b.readAll().map(\.seq) == [1, 2, 3])
        }
    }

    /// Without the index file, `.uniqueEmails` is answered from the account fold a store keeps in
    /// memory, which follows what other writers (other processes, in effect) appended.
    @Test func uniqueEmailsWithoutTheIndexFileFollowOtherWriters() throws {
        try withTempDirectory { dir in
            func writer(_ seed: UInt64) -> FileEventStore {
                let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: seed))
                store.indexFileDisabled = true
                return store
            }
            let a = writer(1), b = writer(2)
            func create(_ store: FileEventStore, _ n: Int) throws -> Bool {
                guard case .accountCreated(var created) = Fixtures.registration(n) else { return false }
                created.email = "zoe@example.com"
                do {
                    _ = try store.append([.accountCreated(created)], to: Fixtures.stream(.registration, n), expected: .noStream,
                                         condition: .uniqueEmails)
                    return true
                } catch let error as StoreError where error.reason == "email-already-in-use" {
                    return false
                }
            }
            #expect(try create(b, 1))  // b has folded nothing yet
            #expect(try !create(a, 2))  // a folds b's account on catching up
            _ = try a.append([Fixtures.event(.accountDeleted, 1)], to: Fixtures.stream(.registration, 1), expected: .exactly(1))
            #expect(try create(b, 3))  // b folds a's deletion
            #expect(try !create(a, 4))
            #expect(!FileSystem.exists(a.indexPath))
        }
    }
}
