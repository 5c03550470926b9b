import LedgerDomain
@testable import LedgerKit

// MARK: - InMemoryEventStore

/// An `EventStore` double that keeps its log in memory, for tests of code built on the store.
/// It follows `FileEventStore`'s rules exactly: the same batch checks and error codes, `ExpectedVersion`
/// and `AppendCondition` semantics, and real lines (`LineCodec` + `SHA256`), so its events chain like
/// the file's. It writes log data version 1 (no key store: every member as its text, as PostgreSQL
/// does), so `log` holds the bytes a file store writes in a folder of data version 1 (a log that
/// holds lines and no `events.keys`). Its capabilities read its events (it has no index and no
/// checkpoint); `.uniqueEmails` asks the account fold it keeps.
final class InMemoryEventStore: LedgerStore {
    /// Every recorded event, in `seq` order.
    private(set) var events: [RecordedEvent] = []
    /// The log as a file store would hold it: one line per event.
    private(set) var log: [UInt8] = []
    /// The event types of each successful append, in order (one durable write each in a real store).
    private(set) var batches: [[String]] = []

    private let clock: any Clock
    private let random: any RandomSource
    private var checker = ChainChecker()
    private var streamVersions: [String: Int] = [:]
    private var accounts = AccountTable()
    private var lastAt = Timestamp(millis: 0)

    /// An empty store.
    init(clock: any Clock = FixedClock(), random: any RandomSource = SeededRandom(seed: 42)) {
        self.clock = clock
        self.random = random
    }

    /// A store whose log starts as `log` (the complete lines of a data version 1 log, checked as a
    /// file store checks the log it continues), e.g. to continue the log of a version 1 folder.
    convenience init(log: [UInt8], clock: any Clock, random: any RandomSource) throws {
        self.init(clock: clock, random: random)
        for (n, line) in splitLines(log).enumerated() {
            let body = Array(line.dropLast())
            let (envelope, bodyLength) = try body.withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: n + 1) }
            let event = try checker.check(envelope, bodyHash: SHA256.hex(Array(body[..<bodyLength])))
            self.log += line
            events.append(event)
            streamVersions[event.stream, default: 0] += 1
            lastAt = max(lastAt, event.at)
            AccountFold.evolve(&accounts, ViewEvent(event), policy: SignInPolicy())
        }
    }

    // MARK: - EventStore

    func append(_ parts: [StreamAppend], condition: AppendCondition?) throws -> [RecordedEvent] {
        _ = try StreamAppend.validate(parts)
        if let folded = condition?.folded {
            for event in events where event.seq > folded.position { folded.observe(event) }
        }
        for part in parts {
            let version = streamVersions[part.stream, default: 0]
            guard part.expected.accepts(version) else {
                throw StoreError.wrongVersion(stream: part.stream, expected: part.expected, actual: version)
            }
            try condition?.check(part) { accounts.holdsLiveAccount(email: $0) }
        }

        // Build and check every line before keeping any: all or nothing.
        var next = checker
        var recorded: [RecordedEvent] = []
        var bytes: [UInt8] = []
        var at = max(clock.now(), lastAt)
        let lines = parts.flatMap({ part in part.events.map { (part.stream, $0) } })
        let marks = BatchMark.marks(count: lines.count)
        for (position, (stream, event)) in lines.enumerated() {
            let id = Identifiers.uuid(fromRandom: random.bytes(16))
            let type = event.type
            let batch = marks[position].isUnmarked ? nil : marks[position]
            let body = LineCodec.body(seq: next.head.seq + 1, id: id, at: at, type: type.rawValue, v: type.currentVersion,
                                      stream: stream, batch: batch, data: event.data, prev: next.head.hash)
            let hash = SHA256.hex(body)
            let envelope = Envelope(seq: next.head.seq + 1, id: id, at: at, type: type.rawValue, v: type.currentVersion,
                                    stream: stream, batch: batch, data: event.data, prev: next.head.hash, hash: hash)
            do {
                recorded.append(try next.check(envelope, bodyHash: hash))
            } catch {
                preconditionFailure("an event this store just built does not verify: \(error)")
            }
            bytes += LineCodec.line(body: body, hash: hash)
            at = max(at, clock.now())
        }
        checker = next
        log += bytes
        batches.append(parts.flatMap { $0.events.map(\.type.rawValue) })
        for event in recorded {
            events.append(event)
            streamVersions[event.stream, default: 0] += 1
            lastAt = max(lastAt, event.at)
            AccountFold.evolve(&accounts, ViewEvent(event), policy: SignInPolicy())
            condition?.folded?.observe(event)
        }
        return recorded
    }

    func read(from seq: Int, _ body: (RecordedEvent) -> Bool) throws {
        for event in events where event.seq >= seq {
            if !body(event) { return }
        }
    }

    func readStream(_ stream: String) throws -> [RecordedEvent] {
        events.filter { $0.stream == stream }
    }

    func head() throws -> Head { checker.head }

    // MARK: - Capabilities

    func streamVersion(_ stream: String) throws -> Int { streamVersions[stream, default: 0] }

    func readIndexedStream(_ stream: String) throws -> [RecordedEvent] { try readStream(stream) }

    func signInRecord(email: String) throws -> SignInRecord? { nil }

    func scanViews(wanted: (ViewEvent) -> Bool, visit: (ViewEvent, Digest32) -> Void) throws -> [RecordedEvent] {
        try scanViewsReadingEveryEvent(wanted: wanted, visit: visit)
    }

    func currentViews(now: Timestamp, usingCheckpoint: Bool) throws -> LedgerViews { try viewsFoldedFromEveryEvent() }

    var viewsMayComeFromACheckpoint: Bool { false }

    func repairTail() throws -> Bool { false }
}
