import LedgerDomain
import LedgerKit
import Testing

/// Makes the store under test. Every call returns a store over fresh, empty storage.
typealias EventStoreFactory = () throws -> any LedgerStore

// MARK: - EventStoreConformance

/// The contract every `EventStore` backend must meet, as backend-neutral checks. Each check takes a
/// factory, so the same functions run against the file store, the in-memory double and, later,
/// other backends (PostgreSQL): `try EventStoreConformance.Case.batchIsAtomic.run(factory)`.
enum EventStoreConformance {
    /// One check of the contract.
    enum Case: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case noStreamAppendsToANewStream
        case exactlyVersionSucceedsAndConflicts
        case anyVersionAlwaysAppends
        case batchGetsConsecutiveSeqs
        case conflictingBatchAppendsNothing
        case partsForSeveralStreamsAreOneBatch
        case aConflictingPartAppendsNoPart
        case readsFromAGlobalPosition
        case readStreamReturnsOnlyThatStream
        case headOfEmptyAndNonEmptyStore
        case everyLineChainsAndHashes
        case recordedEventsEqualWhatIsRead
        case refusingConditionAppendsNothing
        case conditionIsFedEveryUnseenEvent
        case wrongCategoryIsRefused
        case emptyBatchIsRefused
        case invalidDataIsRefused
        case uniqueEmailsRefusesOnlyLiveEmails
        case uniqueEmailsCoversEmailChanges
        case scanViewsVisitsEveryEventAndBuildsTheWanted
        case streamVersionCountsAStreamsEvents
        case readIndexedStreamEqualsReadStream

        var testDescription: String { rawValue }

        /// Runs this check against the stores `make` creates.
        func run(_ make: EventStoreFactory) throws {
            switch self {
            case .noStreamAppendsToANewStream: try EventStoreConformance.noStreamAppendsToANewStream(make)
            case .exactlyVersionSucceedsAndConflicts: try EventStoreConformance.exactlyVersionSucceedsAndConflicts(make)
            case .anyVersionAlwaysAppends: try EventStoreConformance.anyVersionAlwaysAppends(make)
            case .batchGetsConsecutiveSeqs: try EventStoreConformance.batchGetsConsecutiveSeqs(make)
            case .conflictingBatchAppendsNothing: try EventStoreConformance.conflictingBatchAppendsNothing(make)
            case .partsForSeveralStreamsAreOneBatch: try EventStoreConformance.partsForSeveralStreamsAreOneBatch(make)
            case .aConflictingPartAppendsNoPart: try EventStoreConformance.aConflictingPartAppendsNoPart(make)
            case .readsFromAGlobalPosition: try EventStoreConformance.readsFromAGlobalPosition(make)
            case .readStreamReturnsOnlyThatStream: try EventStoreConformance.readStreamReturnsOnlyThatStream(make)
            case .headOfEmptyAndNonEmptyStore: try EventStoreConformance.headOfEmptyAndNonEmptyStore(make)
            case .everyLineChainsAndHashes: try EventStoreConformance.everyLineChainsAndHashes(make)
            case .recordedEventsEqualWhatIsRead: try EventStoreConformance.recordedEventsEqualWhatIsRead(make)
            case .refusingConditionAppendsNothing: try EventStoreConformance.refusingConditionAppendsNothing(make)
            case .conditionIsFedEveryUnseenEvent: try EventStoreConformance.conditionIsFedEveryUnseenEvent(make)
            case .wrongCategoryIsRefused: try EventStoreConformance.wrongCategoryIsRefused(make)
            case .emptyBatchIsRefused: try EventStoreConformance.emptyBatchIsRefused(make)
            case .invalidDataIsRefused: try EventStoreConformance.invalidDataIsRefused(make)
            case .uniqueEmailsRefusesOnlyLiveEmails: try EventStoreConformance.uniqueEmailsRefusesOnlyLiveEmails(make)
            case .uniqueEmailsCoversEmailChanges: try EventStoreConformance.uniqueEmailsCoversEmailChanges(make)
            case .scanViewsVisitsEveryEventAndBuildsTheWanted: try EventStoreConformance.scanViewsVisitsEveryEventAndBuildsTheWanted(make)
            case .streamVersionCountsAStreamsEvents: try EventStoreConformance.streamVersionCountsAStreamsEvents(make)
            case .readIndexedStreamEqualsReadStream: try EventStoreConformance.readIndexedStreamEqualsReadStream(make)
            }
        }
    }

    // MARK: - Expected versions

    /// `.noStream` appends to a stream that does not exist, and conflicts once it does.
    static func noStreamAppendsToANewStream(_ make: EventStoreFactory) throws {
        let store = try make()
        let stream = Fixtures.stream(.registration, 1)
        let recorded = try store.append([Fixtures.registration(1)], to: stream, expected: .noStream)
        #expect(recorded.map(\.seq) == [1])
        #expect(recorded.first?.stream == stream)
        let error = try #require(throws: StoreError.self) {
            try store.append([Fixtures.event(.failed, 1)], to: stream, expected: .noStream)
        }
        #expect(error.code == .wrongExpectedVersion)
        #expect(error.message.contains(stream))
        #expect(try store.readStream(stream).count == 1)
        // Another stream is still new.
        #expect(try store.append([Fixtures.signIn(1)], to: Fixtures.stream(.signin, 2), expected: .noStream).map(\.seq) == [2])
    }

    /// `.exactly(n)` appends when the stream has n events, and otherwise fails naming the stream and both versions.
    static func exactlyVersionSucceedsAndConflicts(_ make: EventStoreFactory) throws {
        let store = try make()
        let stream = Fixtures.stream(.registration, 7)
        #expect(try store.append([Fixtures.registration(1)], to: stream, expected: .exactly(0)).count == 1)
        #expect(try store.append([Fixtures.event(.imageStored), Fixtures.event(.profileWritten)], to: stream,
                                 expected: .exactly(1)).map(\.seq) == [2, 3])
        for wrong in [0, 2, 5] {
            let error = try #require(throws: StoreError.self) {
                try store.append([Fixtures.event(.failed)], to: stream, expected: .exactly(wrong))
            }
            #expect(error.code == .wrongExpectedVersion)
            #expect(error.message.contains(stream))
            let numbers = numbersIn(error.message.replacingAll(stream, with: " "))
            #expect(numbers.contains(wrong), "names the expected version \(wrong): \(error.message)")
            #expect(numbers.contains(3), "names the actual version 3: \(error.message)")
        }
        let conflict = try #require(throws: StoreError.self) {
            try store.append([Fixtures.event(.failed)], to: stream, expected: .noStream)
        }
        #expect(conflict.code == .wrongExpectedVersion)
        #expect(numbersIn(conflict.message.replacingAll(stream, with: " ")).contains(3))
        #expect(try store.head().seq == 3)
        #expect(try store.append([Fixtures.event(.failed)], to: stream, expected: .exactly(3)).map(\.seq) == [4])
    }

    /// `.any` appends to new and existing streams alike.
    static func anyVersionAlwaysAppends(_ make: EventStoreFactory) throws {
        let store = try make()
        let stream = Fixtures.stream(.session, 3)
        #expect(try store.append([Fixtures.event(.sessionStarted)], to: stream, expected: .any).map(\.seq) == [1])
        #expect(try store.append([Fixtures.event(.sessionEnded)], to: stream, expected: .any).map(\.seq) == [2])
        #expect(try store.readStream(stream).map(\.event.type) == [.sessionStarted, .sessionEnded])
    }

    // MARK: - Batches

    /// A batch of 3 gets 3 consecutive seqs after what is already there, in batch order.
    static func batchGetsConsecutiveSeqs(_ make: EventStoreFactory) throws {
        let store = try make()
        _ = try store.append([Fixtures.signIn(1)], to: Fixtures.stream(.signin, 1), expected: .noStream)
        _ = try store.append([Fixtures.signIn(2)], to: Fixtures.stream(.signin, 2), expected: .noStream)
        let stream = Fixtures.stream(.registration, 3)
        let batch = [Fixtures.event(.accountCreated), Fixtures.event(.imageStored), Fixtures.event(.profileWritten)]
        let recorded = try store.append(batch, to: stream, expected: .noStream)
        #expect(recorded.map(\.seq) == [3, 4, 5])
        #expect(recorded.map(\.event) == batch)
        #expect(recorded.allSatisfy { $0.stream == stream })
        #expect(try store.readAll().map(\.seq) == [1, 2, 3, 4, 5])
        #expect(try store.readStream(stream).map(\.event) == batch)
        #expect(try store.head().seq == 5)
    }

    /// A batch that fails its expected version appends none of its events.
    static func conflictingBatchAppendsNothing(_ make: EventStoreFactory) throws {
        let store = try make()
        let stream = Fixtures.stream(.registration, 4)
        _ = try store.append([Fixtures.registration(1)], to: stream, expected: .noStream)
        let before = try store.head()
        let batch = [Fixtures.event(.imageStored), Fixtures.event(.profileWritten), Fixtures.event(.failed)]
        let error = try #require(throws: StoreError.self) { try store.append(batch, to: stream, expected: .exactly(2)) }
        #expect(error.code == .wrongExpectedVersion)
        #expect(try store.head() == before)
        #expect(try store.readAll().count == 1)
        #expect(try store.readStream(stream).count == 1)
        // The next good append continues right after the head.
        #expect(try store.append(batch, to: stream, expected: .exactly(1)).map(\.seq) == [2, 3, 4])
    }

    /// Parts for several streams are appended in order with consecutive seqs, each at its stream's
    /// next position, and the condition is asked once per part.
    static func partsForSeveralStreamsAreOneBatch(_ make: EventStoreFactory) throws {
        let store = try make()
        let registration = Fixtures.stream(.registration, 5), session = Fixtures.stream(.session, 6)
        _ = try store.append([Fixtures.registration(1)], to: registration, expected: .noStream)
        let condition = RecordingCondition()
        let recorded = try store.append([StreamAppend([Fixtures.event(.profileWritten)], to: registration, expected: .exactly(1)),
                                         StreamAppend([Fixtures.event(.sessionStarted)], to: session, expected: .noStream)],
                                        condition: .folded(condition))
        #expect(recorded.map(\.seq) == [2, 3])
        #expect(recorded.map(\.stream) == [registration, session])
        #expect(condition.checks.map(\.stream) == [registration, session])
        #expect(try store.readAll() == [try store.readStream(registration)[0]] + recorded)
        #expect(try store.readStream(registration).map(\.event) == [Fixtures.registration(1), Fixtures.event(.profileWritten)])
        #expect(try store.readStream(session).map(\.event) == [Fixtures.event(.sessionStarted)])
        #expect(try store.streamVersion(session) == 1)
        #expect(try store.readIndexedStream(session) == [recorded[1]])
        // A stream named twice in one append is refused.
        let twice = try #require(throws: StoreError.self) {
            try store.append([StreamAppend([Fixtures.signIn(7)], to: Fixtures.stream(.signin, 7), expected: .noStream),
                              StreamAppend([Fixtures.signIn(8)], to: Fixtures.stream(.signin, 7), expected: .any)], condition: nil)
        }
        #expect(twice.code == .invalidBatch)
        #expect(try store.head().seq == 3)
    }

    /// When one part fails its expected version, its category check or the condition, no part is appended.
    static func aConflictingPartAppendsNoPart(_ make: EventStoreFactory) throws {
        let store = try make()
        let registration = Fixtures.stream(.registration, 5), session = Fixtures.stream(.session, 6)
        _ = try store.append([Fixtures.event(.sessionStarted)], to: session, expected: .noStream)
        let before = try store.head()
        let good = StreamAppend([Fixtures.registration(1)], to: registration, expected: .noStream)
        let conflict = try #require(throws: StoreError.self) {
            try store.append([good, StreamAppend([Fixtures.event(.sessionEnded)], to: session, expected: .noStream)], condition: nil)
        }
        #expect(conflict.code == .wrongExpectedVersion)
        let misplaced = try #require(throws: StoreError.self) {
            try store.append([good, StreamAppend([Fixtures.registration(2)], to: session, expected: .exactly(1))], condition: nil)
        }
        #expect(misplaced.code == .invalidBatch)
        let condition = RecordingCondition()
        condition.refusal = StoreError(.conditionFailed, "email already in use", reason: "email-already-in-use")
        #expect(throws: StoreError.self) {
            try store.append([StreamAppend([Fixtures.event(.sessionEnded)], to: session, expected: .exactly(1)), good], condition: .folded(condition))
        }
        #expect(try store.head() == before)
        #expect(try store.readStream(registration).isEmpty)
        #expect(try store.readStream(session).count == 1)
        // The same parts, right: both go in.
        let recorded = try store.append([good, StreamAppend([Fixtures.event(.sessionEnded)], to: session, expected: .exactly(1))], condition: nil)
        #expect(recorded.map(\.seq) == [2, 3])
    }

    // MARK: - Reads

    /// `read(from:)` starts at a global position and stops when the body returns false.
    static func readsFromAGlobalPosition(_ make: EventStoreFactory) throws {
        let store = try make()
        #expect(try store.readAll().isEmpty)
        for n in 1...5 {
            _ = try store.append([Fixtures.signIn(n)], to: Fixtures.stream(.signin, n), expected: .noStream)
        }
        #expect(try store.readAll().map(\.seq) == [1, 2, 3, 4, 5])
        #expect(try store.readAll(from: 0).map(\.seq) == [1, 2, 3, 4, 5])
        #expect(try store.readAll(from: 3).map(\.seq) == [3, 4, 5])
        #expect(try store.readAll(from: 5).map(\.seq) == [5])
        #expect(try store.readAll(from: 6).isEmpty)
        #expect(try store.readAll(from: 2, limit: 2).map(\.seq) == [2, 3])
        var seen: [Int] = []
        try store.read(from: 4) { event in
            seen.append(event.seq)
            return false
        }
        #expect(seen == [4])
    }

    /// `readStream` returns exactly one stream's events, in order; an unknown stream is empty.
    static func readStreamReturnsOnlyThatStream(_ make: EventStoreFactory) throws {
        let store = try make()
        let a = Fixtures.stream(.registration, 10), b = Fixtures.stream(.registration, 11)
        _ = try store.append([Fixtures.registration(1)], to: a, expected: .noStream)
        _ = try store.append([Fixtures.registration(2)], to: b, expected: .noStream)
        _ = try store.append([Fixtures.event(.imageStored)], to: a, expected: .exactly(1))
        _ = try store.append([Fixtures.event(.failed, 2)], to: b, expected: .exactly(1))
        _ = try store.append([Fixtures.event(.profileWritten)], to: a, expected: .exactly(2))
        #expect(try store.readStream(a).map(\.seq) == [1, 3, 5])
        #expect(try store.readStream(a).map(\.event.type) == [.accountCreated, .imageStored, .profileWritten])
        #expect(try store.readStream(b).map(\.seq) == [2, 4])
        #expect(try store.readStream(Fixtures.stream(.registration, 12)).isEmpty)
    }

    /// `streamVersion` is the count of a stream's events (what `append` checks), 0 for an unknown
    /// stream or an empty store, and agrees with `readStream` as the log grows.
    static func streamVersionCountsAStreamsEvents(_ make: EventStoreFactory) throws {
        let store = try make()
        let a = Fixtures.stream(.registration, 30), b = Fixtures.stream(.registration, 31)
        #expect(try store.streamVersion(a) == 0)
        _ = try store.append([Fixtures.registration(1), Fixtures.event(.imageStored)], to: a, expected: .noStream)
        #expect(try store.streamVersion(a) == 2)
        #expect(try store.streamVersion(b) == 0)
        _ = try store.append([Fixtures.registration(2)], to: b, expected: .noStream)
        _ = try store.append([Fixtures.event(.profileWritten)], to: a, expected: .exactly(2))
        for stream in [a, b, Fixtures.stream(.session, 32)] {
            #expect(try store.streamVersion(stream) == store.readStream(stream).count)
        }
        #expect(try store.streamVersion(a) == 3)
        // The version is what `append` accepts next.
        _ = try store.append([Fixtures.event(.failed, 2)], to: b, expected: .exactly(try store.streamVersion(b)))
        #expect(try store.streamVersion(b) == 2)
    }

    /// `readIndexedStream` gives what `readStream` gives, for streams of one, two and more events
    /// interleaved with others, and none for an unknown stream.
    static func readIndexedStreamEqualsReadStream(_ make: EventStoreFactory) throws {
        let store = try make()
        let a = Fixtures.stream(.registration, 40), b = Fixtures.stream(.registration, 41), c = Fixtures.stream(.registration, 42)
        let session = Fixtures.stream(.session, 43)
        _ = try store.append([Fixtures.registration(1)], to: a, expected: .noStream)
        _ = try store.append([Fixtures.registration(2)], to: b, expected: .noStream)
        _ = try store.append([Fixtures.event(.sessionStarted, 3)], to: session, expected: .noStream)
        _ = try store.append([Fixtures.registration(4)], to: c, expected: .noStream)
        _ = try store.append([Fixtures.event(.imageStored, 1)], to: a, expected: .exactly(1))
        _ = try store.append([Fixtures.event(.failed, 2)], to: b, expected: .exactly(1))
        _ = try store.append([Fixtures.event(.profileWritten, 1)], to: a, expected: .exactly(2))
        _ = try store.append([Fixtures.event(.sessionEnded, 3)], to: session, expected: .exactly(1))
        _ = try store.append([Fixtures.event(.failed, 1), Fixtures.event(.imageDeleted, 1)], to: a, expected: .exactly(3))
        for stream in [a, b, c, session, Fixtures.stream(.session, 44)] {
            let indexed = try store.readIndexedStream(stream), whole = try store.readStream(stream)
            #expect(indexed == whole, "\(stream)")
        }
        #expect(try store.readIndexedStream(a).map(\.seq) == [1, 5, 7, 9, 10])
    }

    /// `scanViews` visits every event as `read` gives it (converted for the views, with its hash) and
    /// returns the wanted ones whole, equal to what `read` gives.
    static func scanViewsVisitsEveryEventAndBuildsTheWanted(_ make: EventStoreFactory) throws {
        let store = try make()
        let a = Fixtures.stream(.registration, 20), b = Fixtures.stream(.registration, 21)
        _ = try store.append([Fixtures.registration(1), Fixtures.event(.imageStored)], to: a, expected: .noStream)
        _ = try store.append([Fixtures.registration(2)], to: b, expected: .noStream)
        _ = try store.append([Fixtures.event(.profileWritten)], to: a, expected: .exactly(2))
        let all = try store.readAll()
        var visited: [(ViewEvent, Digest32)] = []
        let wanted = try store.scanViews(wanted: { event in
            if case .accountCreated = event.fact { return true }
            return false
        }, visit: { visited.append(($0, $1)) })
        #expect(visited.map(\.0) == all.map(ViewEvent.init))
        #expect(visited.map { $0.1.hex } == all.map(\.envelope.hash))
        #expect(wanted == all.filter { $0.event.type == .accountCreated })
        #expect(wanted.count == 2)
    }

    /// `head()` is seq 0 and 64 zeros when empty, then the last line's seq and hash.
    static func headOfEmptyAndNonEmptyStore(_ make: EventStoreFactory) throws {
        let store = try make()
        #expect(try store.head() == Head.empty)
        #expect(Head.empty == Head(seq: 0, hash: String(repeating: "0", count: 64)))
        let first = try store.append([Fixtures.signIn(1)], to: Fixtures.stream(.signin, 1), expected: .noStream)
        #expect(try store.head() == Head(seq: 1, hash: first[0].envelope.hash))
        let more = try store.append([Fixtures.registration(1), Fixtures.event(.failed, 1)],
                                    to: Fixtures.stream(.registration, 2), expected: .noStream)
        #expect(try store.head() == Head(seq: 3, hash: more[1].envelope.hash))
    }

    /// Every event has seq 1, 2, …; `prev` is the previous hash (zeros first); `hash` is the SHA-256 of its line body.
    static func everyLineChainsAndHashes(_ make: EventStoreFactory) throws {
        let store = try make()
        var n = 0
        for type in EventType.allCases {
            n += 1
            _ = try store.append([Fixtures.event(type, n)], to: Fixtures.stream(for: type, n), expected: .noStream)
        }
        _ = try store.append([Fixtures.registration(99), Fixtures.event(.imageStored, 99)],
                             to: Fixtures.stream(.registration, 99), expected: .noStream)
        let events = try store.readAll()
        #expect(events.count == EventType.allCases.count + 2)
        // Each store says which data version it writes: a new file or PostgreSQL store writes 2
        // (personal members encrypted under the folder's key store or `ledger_keys`), the in-memory
        // store 1. What is stored is read back with the store's own keys.
        let dataVersion = store.dataVersion
        let opener: any PersonalDataOpener = switch store {
        case let file as FileEventStore: KeyRing(directory: FileSystem.directoryName(file.logPath))
        case let postgres as PostgresEventStore: PostgresKeyRing(url: postgres.url)
        default: SealedOpener()
        }
        var prev = Envelope.genesisHash
        var ids = Set<String>()
        var lastAt = Timestamp(millis: 0)
        for (index, event) in events.enumerated() {
            let e = event.envelope
            #expect(e.seq == index + 1)
            #expect(e.prev == prev)
            let body = LineCodec.body(seq: e.seq, id: e.id, at: e.at, type: e.type, v: e.v, stream: e.stream, batch: e.batch, data: e.data, prev: e.prev)
            #expect(e.hash == SHA256.hex(body), "hash of line \(e.seq)")
            #expect(Identifiers.isLowercaseUUID(e.id))
            #expect(ids.insert(e.id).inserted, "id \(e.id) is unique")
            #expect(e.type == event.event.type.rawValue)
            #expect(e.v == DataVersions.written(event.event.type, dataVersion: dataVersion))
            // What is stored is the event's data, its personal members encrypted in version 2.
            let upcaster = try #require(DataVersions.upcaster(event.event.type, version: e.v))
            #expect(try DataVersions.upcast(e.data, type: event.event.type, upcaster: upcaster, eventID: e.id, opener: opener) == event.event.data)
            #expect((e.data == event.event.data) == (e.v == 1), "a version 2 line stores ciphertext")
            #expect(e.at >= lastAt, "times never go backwards")
            // The whole line decodes back to the same envelope.
            let line = LineCodec.line(body: body, hash: e.hash)
            let decoded = try line.dropLast().withUnsafeBufferPointer { buffer in try LineCodec.decode(buffer, lineNumber: e.seq) }
            #expect(decoded.0 == e)
            #expect(decoded.bodyLength == body.count)
            prev = e.hash
            lastAt = e.at
        }
        #expect(try store.head() == Head(seq: events.count, hash: prev))
    }

    /// What `append` returns is exactly what reads return later.
    static func recordedEventsEqualWhatIsRead(_ make: EventStoreFactory) throws {
        let store = try make()
        var recorded: [RecordedEvent] = []
        for (n, type) in EventType.allCases.enumerated() {
            recorded += try store.append([Fixtures.event(type, n)], to: Fixtures.stream(for: type, n), expected: .noStream)
        }
        #expect(try store.readAll() == recorded)
        #expect(recorded.map(\.event) == EventType.allCases.enumerated().map { Fixtures.event($1, $0) })
    }

    // MARK: - Append conditions

    /// A condition that refuses (`conditionFailed`) stops the whole batch; its reason comes through.
    static func refusingConditionAppendsNothing(_ make: EventStoreFactory) throws {
        let store = try make()
        _ = try store.append([Fixtures.registration(1)], to: Fixtures.stream(.registration, 1), expected: .noStream)
        let before = try store.head()
        let condition = RecordingCondition()
        condition.refusal = StoreError(.conditionFailed, "email already in use", reason: "email-already-in-use")
        let stream = Fixtures.stream(.registration, 2)
        let batch = [Fixtures.registration(2), Fixtures.event(.imageStored, 2)]
        let error = try #require(throws: StoreError.self) {
            try store.append(batch, to: stream, expected: .noStream, condition: .folded(condition))
        }
        #expect(error.code == .conditionFailed)
        #expect(error.reason == "email-already-in-use")
        #expect(condition.checks.count == 1)
        #expect(condition.checks.first?.events == batch)
        #expect(condition.checks.first?.stream == stream)
        #expect(try store.head() == before)
        #expect(try store.readAll().count == 1)
        #expect(try store.readStream(stream).isEmpty)
        // Once the condition agrees, the same batch goes in.
        condition.refusal = nil
        #expect(try store.append(batch, to: stream, expected: .noStream, condition: .folded(condition)).map(\.seq) == [2, 3])
    }

    /// Before `check`, a condition observes every event after its `position`, once, in order, including
    /// those appended without it; after a successful append it has also observed the new events.
    static func conditionIsFedEveryUnseenEvent(_ make: EventStoreFactory) throws {
        let store = try make()
        for n in 1...3 {
            _ = try store.append([Fixtures.signIn(n)], to: Fixtures.stream(.signin, n), expected: .noStream)
        }
        let condition = RecordingCondition()
        _ = try store.append([Fixtures.registration(1)], to: Fixtures.stream(.registration, 10), expected: .noStream,
                             condition: .folded(condition))
        #expect(condition.observedBeforeCheck == [[1, 2, 3]])
        #expect(condition.observed == [1, 2, 3, 4])
        #expect(condition.position == 4)

        // Two appends without it, then one with it: only seqs 5 and 6 are new to it.
        _ = try store.append([Fixtures.signIn(5)], to: Fixtures.stream(.signin, 5), expected: .noStream)
        _ = try store.append([Fixtures.signIn(6)], to: Fixtures.stream(.signin, 6), expected: .noStream)
        _ = try store.append([Fixtures.registration(2), Fixtures.event(.failed, 2)], to: Fixtures.stream(.registration, 11),
                             expected: .noStream, condition: .folded(condition))
        #expect(condition.observedBeforeCheck == [[1, 2, 3], [1, 2, 3, 4, 5, 6]])
        #expect(condition.observed == Array(1...8))
        #expect(condition.position == 8)

        // A condition that starts part-way is fed only what follows its position.
        let late = RecordingCondition(position: 6)
        late.refusal = StoreError(.conditionFailed, "no", reason: "no")
        #expect(throws: StoreError.self) {
            try store.append([Fixtures.signIn(9)], to: Fixtures.stream(.signin, 9), expected: .noStream, condition: .folded(late))
        }
        #expect(late.observed == [7, 8])
        // A refused append is not observed.
        #expect(late.position == 8)
    }

    // MARK: - Invalid batches

    /// An event whose type belongs to another category, or a malformed stream name, is refused with `invalidBatch`.
    static func wrongCategoryIsRefused(_ make: EventStoreFactory) throws {
        let store = try make()
        let registration = Fixtures.stream(.registration, 1)
        let cases: [([LedgerEvent], String)] = [
            ([Fixtures.event(.sessionStarted)], registration),
            ([Fixtures.registration(1), Fixtures.event(.signInFailed)], registration),
            ([Fixtures.registration(1)], Fixtures.stream(.session, 1)),
            ([Fixtures.registration(1)], Fixtures.stream(.signin, 1)),
            ([Fixtures.signIn(1)], "signin-" + Fixtures.uuid(0xabcdef).uppercased()),
            ([Fixtures.signIn(1)], "signin"),
            ([Fixtures.signIn(1)], "login-" + Fixtures.uuid(1)),
            ([Fixtures.signIn(1)], Fixtures.uuid(1)),
        ]
        for (batch, stream) in cases {
            let error = try #require(throws: StoreError.self) { try store.append(batch, to: stream, expected: .any) }
            #expect(error.code == .invalidBatch, "\(batch.map(\.type)) to \(stream)")
        }
        #expect(try store.head() == Head.empty)
        #expect(try store.readAll().isEmpty)
    }

    /// An empty batch is refused with `invalidBatch`.
    static func emptyBatchIsRefused(_ make: EventStoreFactory) throws {
        let store = try make()
        let error = try #require(throws: StoreError.self) {
            try store.append([], to: Fixtures.stream(.signin, 1), expected: .any)
        }
        #expect(error.code == .invalidBatch)
        #expect(try store.head() == Head.empty)
    }

    /// An event whose data the log would reject (not a lowercase UUID, uppercase email, bad kebab code) is
    /// refused with `invalidBatch` before anything is written, so the log can never hold a line it cannot read.
    /// The email-uniqueness condition, however the backend answers it (the writers' index, the
    /// PostgreSQL account tables, a fold kept in memory): a live email is refused, a deleted
    /// account's email is free again, one batch cannot take one email twice.
    static func uniqueEmailsRefusesOnlyLiveEmails(_ make: EventStoreFactory) throws {
        let store = try make()
                func create(_ n: Int, email: String, _ condition: AppendCondition) throws -> Bool {
            guard case .accountCreated(var created) = Fixtures.registration(n) else { return false }
            created.email = email
            do {
                _ = try store.append([.accountCreated(created)], to: Fixtures.stream(.registration, n), expected: .noStream, condition: condition)
                return true
            } catch let error as StoreError where error.reason == "email-already-in-use" && error.condition == .emailTaken {
                return false
            }
        }
        #expect(try create(1, email: "zoe@example.com", .uniqueEmails))
        #expect(try create(2, email: "max@example.com", .uniqueEmails))
        #expect(try !create(3, email: "zoe@example.com", .uniqueEmails))
        #expect(try !create(4, email: "zoe@example.com", .uniqueEmails))
        _ = try store.append([Fixtures.event(.accountDeleted, 1)], to: Fixtures.stream(.registration, 1), expected: .exactly(1))
        #expect(try create(5, email: "zoe@example.com", .uniqueEmails))
        #expect(try !create(6, email: "zoe@example.com", .uniqueEmails))
        #expect(try !create(7, email: "max@example.com", .uniqueEmails))
        #expect(try create(8, email: "ann@example.com", .uniqueEmails))
        // Two accounts with one email in one batch: refused, in one stream or across two.
        let twins = [9, 10].map { n -> LedgerEvent in
            .accountCreated(AccountCreated(uid: Fixtures.uuid(1000 + n), email: "twin@example.com", passwordHash: "$y$j9T$salt\(n)$hash\(n)"))
        }
        let before = try store.head()
        let oneStream = try #require(throws: StoreError.self) {
            try store.append(twins, to: Fixtures.stream(.registration, 9), expected: .noStream, condition: .uniqueEmails)
        }
        #expect(oneStream.reason == "email-already-in-use")
        let twoStreams = try #require(throws: StoreError.self) {
            try store.append([StreamAppend([twins[0]], to: Fixtures.stream(.registration, 9), expected: .noStream),
                              StreamAppend([twins[1]], to: Fixtures.stream(.registration, 10), expected: .noStream)], condition: .uniqueEmails)
        }
        #expect(twoStreams.code == .invalidBatch)
        #expect(try store.head() == before)
    }

    /// An `EmailChanged` claims its new email as a sign-up does: refused when a live account holds it
    /// or an earlier event of the batch claimed it; the email it leaves is free again; an append that
    /// claims emails in two streams is refused whole.
    static func uniqueEmailsCoversEmailChanges(_ make: EventStoreFactory) throws {
        let store = try make()
        for n in 1...3 {
            guard case .accountCreated(let created) = Fixtures.registration(n) else { return }
            _ = try store.append([.accountCreated(created)], to: Fixtures.stream(.registration, n), expected: .noStream, condition: .uniqueEmails)
        }
        func change(_ n: Int, to email: String, expected: ExpectedVersion, extra: [LedgerEvent] = []) throws -> Bool {
            let uid = Fixtures.uuid(1000 + n)
            let events = [LedgerEvent.emailChanged(EmailChanged(uid: uid, email: email, previousEmail: "user\(n)@example.com"))] + extra
            do {
                _ = try store.append(events, to: StreamCategory.account.stream(uid), expected: expected, condition: .uniqueEmails)
                return true
            } catch let error as StoreError where error.reason == "email-already-in-use" && error.condition == .emailTaken {
                return false
            }
        }
        var before = try store.head()
        #expect(try !change(1, to: "user2@example.com", expected: .noStream), "a live account holds it")
        #expect(try store.head() == before, "a refusal appends nothing")
        #expect(try change(1, to: "new@example.com", expected: .noStream))
        #expect(try !change(2, to: "new@example.com", expected: .noStream), "the account that moved there holds it")
        // The email account 1 left is free: a sign-up and an email change may take it.
        guard case .accountCreated(var again) = Fixtures.registration(4) else { return }
        again.email = "user1@example.com"
        _ = try store.append([.accountCreated(again)], to: Fixtures.stream(.registration, 4), expected: .noStream, condition: .uniqueEmails)
        #expect(try !change(3, to: "user1@example.com", expected: .noStream), "the new account holds it now")
        // Within one batch: a second claim of one email is refused.
        let twice = LedgerEvent.emailChanged(EmailChanged(uid: Fixtures.uuid(1002), email: "twice@example.com", previousEmail: "twice@example.com"))
        before = try store.head()
        #expect(try !change(2, to: "twice@example.com", expected: .noStream, extra: [twice]))
        #expect(try store.head() == before)
        // Claims in two streams of one append: refused before anything is checked or written.
        let accountPart = StreamAppend([.emailChanged(EmailChanged(uid: Fixtures.uuid(1002), email: "two@example.com", previousEmail: "user2@example.com"))],
                                       to: StreamCategory.account.stream(Fixtures.uuid(1002)), expected: .noStream)
        let twoStreams = try #require(throws: StoreError.self) {
            try store.append([accountPart, StreamAppend([Fixtures.registration(5)], to: Fixtures.stream(.registration, 5), expected: .noStream)],
                             condition: .uniqueEmails)
        }
        #expect(twoStreams.code == .invalidBatch)
        #expect(try store.head() == before)
        #expect(try change(2, to: "two@example.com", expected: .noStream))
    }

    static func invalidDataIsRefused(_ make: EventStoreFactory) throws {
        let store = try make()
        _ = try store.append([Fixtures.signIn(1)], to: Fixtures.stream(.signin, 1), expected: .noStream)
        let before = try store.head()
        let stream = Fixtures.stream(.registration, 2)
        let bad: [LedgerEvent] = [
            .accountCreated(AccountCreated(uid: "NOT-A-UUID", email: "a@example.com", passwordHash: "$y$x$y")),
            .accountCreated(AccountCreated(uid: Fixtures.uuid(5), email: "Alice@Example.com", passwordHash: "$y$x$y")),
            .failed(Failed(step: .validation, reason: "Not Kebab", message: "m")),
        ]
        for event in bad {
            let error = try #require(throws: StoreError.self) {
                try store.append([Fixtures.registration(2), event], to: stream, expected: .noStream)
            }
            #expect(error.code == .invalidBatch, "\(event)")
        }
        #expect(try store.head() == before)
        #expect(try store.readAll().count == 1)
        #expect(try store.append([Fixtures.registration(2)], to: stream, expected: .noStream).map(\.seq) == [2])
    }

    // MARK: - Helpers

    /// The decimal numbers that appear in `text`.
    static func numbersIn(_ text: String) -> [Int] {
        text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    }
}

// MARK: - RecordingCondition

/// A `FoldedCondition` that records what the store feeds it and refuses when told to.
final class RecordingCondition: FoldedCondition {
    private(set) var position: Int
    /// Every seq observed, in order.
    private(set) var observed: [Int] = []
    /// What had been observed at each `check` call.
    private(set) var observedBeforeCheck: [[Int]] = []
    /// The arguments of each `check` call.
    private(set) var checks: [(events: [LedgerEvent], stream: String)] = []
    /// Thrown by `check` when set.
    var refusal: StoreError?

    init(position: Int = 0) { self.position = position }

    func observe(_ event: RecordedEvent) {
        #expect(event.seq == position + 1, "events are fed in order, each once")
        observed.append(event.seq)
        position = event.seq
    }

    func check(_ events: [LedgerEvent], stream: String) throws {
        observedBeforeCheck.append(observed)
        checks.append((events, stream))
        if let refusal { throw refusal }
    }
}

extension String {
    /// This string with every occurrence of `target` replaced (no Foundation needed).
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
