import Glibc
import LedgerDomain

// MARK: - MigratedLogWriter

/// Writes the log of a migrated data folder (`LogMigration`), one old event at a time: first its
/// `LogMigrated` line, then each old event with its id, type, stream, `at` and batch mark, its seq
/// shifted by one and chained anew, and its personal members sealed by `PersonalDataSealer` exactly
/// as `FileEventStore.write` seals them: under the subject the event names, an email's holder being
/// the live account of the account fold before the event's batch (a writer asks its verified prefix,
/// which its own batch is not part of). Lines are buffered and written in large pieces; nothing is
/// synced until `finish`, since the folder is not in place before then.
final class MigratedLogWriter {
    private let log: FileDescriptor
    private let keys: KeyStore
    private let random: any RandomSource
    private let migratedAt: Timestamp
    private let fromHead: Head
    private let events: Int
    private var buffer: [UInt8] = []
    private var written = 0
    /// The new log's chain, checking each line as it is written (as a writer checks its own).
    private var checker = ChainChecker()
    /// The account fold of the old events copied so far, up to the last whole batch.
    private var accounts = AccountTable()
    /// The events of the batch being copied, folded once it is whole.
    private var batch: [ViewEvent] = []
    /// Subjects whose erasure the old log records: their keys are destroyed once the log is written.
    private var erased: [SubjectID] = []

    /// Bytes buffered before a write.
    private static let pieceSize = 1 << 20

    /// A writer into the folder `directory` (new and empty), of the migration of `events` events
    /// whose head is `fromHead`, run at `migratedAt`.
    init(directory: String, fromHead: Head, events: Int, migratedAt: Timestamp, random: any RandomSource) throws {
        log = try FileDescriptor(path: FileSystem.join(directory, "events.jsonl"), flags: O_WRONLY | O_CREAT | O_EXCL)
        do {
            keys = try KeyStore(directory: directory, writable: true)
        } catch {
            throw StoreError(.io, "the key store in \(directory) cannot be made: \(error.message)")
        }
        keys.syncsEachWrite = false
        accounts.reserve(lines: events)
        self.random = random; self.migratedAt = migratedAt; self.fromHead = fromHead; self.events = events
    }

    /// The new log's head so far.
    var head: Head { checker.head }

    /// Copies the old event `recorded` (its line is the next of the old log). The first call writes
    /// the `LogMigrated` line before it, dated as it is.
    func copy(_ recorded: RecordedEvent) throws {
        let envelope = recorded.envelope
        guard envelope.v == 1 else {
            throw MigrationError(.alreadyVersion2, "line \(envelope.seq) of the log is data version \(envelope.v): the log was migrated already")
        }
        if checker.head.seq == 0 { try writeMigrationEvent(at: envelope.at) }
        let type = recorded.event.type
        // The holder is asked of `self.accounts` itself: a copy alive across the fold below would
        // make every fold copy the whole table.
        let (data, v) = try PersonalDataSealer.seal(envelope.data, type: type, eventID: envelope.id, at: envelope.at, keys: keys,
                                                    holder: { [unowned self] in AccountFold.liveAccount(of: accounts.emailKey($0), in: accounts) },
                                                    random: random)
        try append(Envelope(seq: 0, id: envelope.id, at: envelope.at, type: envelope.type, v: v, stream: envelope.stream,
                            batch: envelope.batch, data: data, prev: "", hash: ""), event: recorded.event)
        batch.append(ViewEvent(recorded))
        if !envelope.batchMark.leavesBatchOpen {
            for event in batch { AccountFold.evolve(&self.accounts, event) }
            batch.removeAll(keepingCapacity: true)
        }
        if case .personalDataErased(let erasure) = recorded.event { erased.append(erasure.subject) }
    }

    /// Writes what is buffered, destroys the keys of the subjects the old log erased, and makes the
    /// log and the key store durable; returns the new log's head.
    func finish() throws -> Head {
        try flush()
        try log.sync()
        do {
            for subject in erased { try keys.erase(subject: subject) }
            try keys.sync()
        } catch {
            throw StoreError(.io, "the key store \(keys.path) could not be written: \(error.message)")
        }
        return checker.head
    }

    // MARK: - Lines

    /// The first line: `LogMigrated` in a stream of its own, at `at`.
    private func writeMigrationEvent(at: Timestamp) throws {
        let payload = LogMigrated(fromHead: fromHead, events: events, migratedAt: migratedAt)
        let stream = StreamCategory.migration.stream(Identifiers.uuid(fromRandom: random.bytes(16)))
        try append(Envelope(seq: 0, id: Identifiers.uuid(fromRandom: random.bytes(16)), at: at, type: EventType.logMigrated.rawValue,
                            v: EventType.logMigrated.currentVersion, stream: stream, data: payload.data, prev: "", hash: ""),
                   event: .logMigrated(payload))
    }

    /// Appends the line of `envelope` (its seq, prev and hash filled in here) to the buffer, checked
    /// as the next line of the new log.
    private func append(_ envelope: Envelope, event: LedgerEvent) throws {
        var line = envelope
        line.seq = checker.head.seq + 1
        line.prev = checker.head.hash
        let body = LineCodec.body(seq: line.seq, id: line.id, at: line.at, type: line.type, v: line.v, stream: line.stream,
                                  batch: line.batch, data: line.data, prev: line.prev)
        line.hash = SHA256.hex(body)
        do {
            _ = try checker.check(line, bodyHash: line.hash, prepared: .event(event))
        } catch {
            // An id repeated by the random source, or a line this build cannot have written.
            throw StoreError(.invalidBatch, "the migrated line \(line.seq) does not verify: \(error)")
        }
        buffer.append(contentsOf: LineCodec.line(body: body, hash: line.hash))
        if buffer.count >= Self.pieceSize { try flush() }
    }

    /// Writes the buffered lines.
    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { (raw) throws in try log.write(raw, at: written) }
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }
}
