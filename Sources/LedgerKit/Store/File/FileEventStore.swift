import Glibc
import LedgerDomain

// MARK: - FileEventStore

/// The file backend: `events.jsonl` in the data directory, appended under an exclusive `flock`
/// on `events.lock`, one `write` per batch, fsynced before success is reported.
/// Keeps what it knows of the verified prefix of the log (`VerifiedPrefix`: size, head, stream
/// versions, over the writers' index when there is one) and catches up on what other processes
/// appended each time it takes the lock.
public final class FileEventStore: LedgerStore, PowerLossDrill {
    /// The data directory.
    public let directory: String
    /// `DIR/events.jsonl`.
    public let logPath: String
    /// `DIR/events.lock`.
    public let lockPath: String
    /// `DIR/events.jsonl.broken`: torn tails moved aside by repairs.
    public let brokenPath: String
    /// `DIR/events.jsonl.index`: stream versions and the account fold's state for writers (see `WritersIndex`).
    public let indexPath: String
    /// `DIR/events.jsonl.index.checkpoint`: the index saved durably now and then (see `WritersIndex+Checkpoint`).
    public var indexCheckpointPath: String { WritersIndex.checkpointPath(forIndex: indexPath) }
    /// Receives one-line notices (torn-tail repairs) meant for standard error.
    public var notice: (String) -> Void = { _ in }

    private let clock: any Clock
    private let random: any RandomSource
    var prefix = VerifiedPrefix()
    private(set) var poisoned: StoreError?
    /// Set when the index file failed this process once; it then keeps its index in memory.
    var indexFileDisabled = !WritersIndex.enabled
    /// The log's (device, inode), for the index file's header.
    var logIdentity: (dev: UInt64, ino: UInt64) = (0, 0)
    /// The file `prefix` verified (nil before the first look).
    var verifiedLog: FileIdentity?
    /// The lock file and log appends keep open (see `AppendFiles`).
    var appendFiles: AppendFiles?
    /// Random bytes drawn ahead for event ids (see `IDBytes`).
    let idBytes = IDBytes()
    /// The opener of this folder's personal members (its key store, read-only).
    var keyRing: KeyRing { KeyRing.forLog(logPath) }
    /// The key store this writer encrypts with, once opened (`dataKeys`).
    var openKeys: KeyStore?
    /// Subjects whose live key this store destroyed on its way, for an erasure event it met past
    /// its caches (not one it was asked to make): `recover` reports them.
    var keysDestroyedOnTheWay: [SubjectID] = []
    /// Subjects of an erasure cut short (its marker left) whose keys this store destroyed on its
    /// way: `recover` reports them as finished.
    var erasuresFinishedOnTheWay: [SubjectID] = []
    /// How many erasures the writers' index had folded when this store last looked for their keys
    /// (`finishErasuresTheIndexRecords`).
    var erasuresLookedAt = 0
    /// Set by `appendCutByPowerLoss`: the next write keeps only this many lines of its batch.
    private var powerCut: Int?
    /// When set, this store's appends (but erasures, which go alone) are handed to this group
    /// committer, shared with the other stores of one `Ledger`: its store writes them with others'.
    public var groupCommitter: GroupCommitter?

    /// A store over `directory` (created on the first write).
    public init(directory: String, clock: any Clock = SystemClock(), random: any RandomSource = SecureRandom()) {
        self.directory = directory
        self.logPath = FileSystem.join(directory, "events.jsonl")
        self.lockPath = FileSystem.join(directory, "events.lock")
        self.brokenPath = logPath + ".broken"
        self.indexPath = logPath + ".index"
        self.clock = clock
        self.random = random
    }

    // MARK: - Append

    /// Appends the parts as one write and one fsync, under the exclusive lock.
    public func append(_ parts: [StreamAppend], condition: AppendCondition?) throws -> [RecordedEvent] {
        if let poisoned { throw poisoned }
        let decoded = try StreamAppend.validatedData(parts)
        if let groupCommitter, powerCut == nil, decoded.allSatisfy({ $0.event.erasedSubject == nil }) {
            var batch = GroupedAppend(parts, condition: condition)
            batch.validated = decoded
            return try groupCommitter.append(batch)
        }
        return try StoreError.mapping {
            let lock = try lockForAppend()
            defer { releaseWritersLock(lock) }
            let log = try logForAppend()
            try prepareForAppend(log)
            try check(parts, condition: condition, log: log)
            let erasing = decoded.compactMap(\.event.erasedSubject)
            if !erasing.isEmpty { try beginErasure(of: erasing) }
            let recorded = try write([WriteBatch(parts: parts, decoded: decoded, condition: condition?.folded)], log: log)
            finishAppend()
            return recorded[0]
        }
    }

    /// What every append does first under the lock: an erasure a crash cut short is finished, and
    /// what other processes appended is read.
    func prepareForAppend(_ log: FileDescriptor) throws {
        try finishErasureLeftBehind(log)
        try catchUpAsWriter(log)
    }

    /// Checks one batch against the log as it stands (its parts' versions, its condition); throws
    /// the refusal.
    func check(_ parts: [StreamAppend], condition: AppendCondition?, log: FileDescriptor) throws {
        if let folded = condition?.folded { try feed(folded, from: log) }
        for part in parts {
            let version = prefix.version(of: part.stream)
            guard part.expected.accepts(version) else {
                throw StoreError.wrongVersion(stream: part.stream, expected: part.expected, actual: version)
            }
            try condition?.check(part) { prefix.holdsLiveAccount(email: $0) }
        }
    }

    /// What every append does last under the lock: the index's coverage recorded (or the index
    /// given up when its file failed), and the index checkpointed when due.
    func finishAppend() {
        if prefix.lostTable {
            indexFileDisabled = true
            prefix = VerifiedPrefix()  // the next append reads the whole log once, without the index file
        } else {
            prefix.table?.setCoverage(prefix.coverage, logDevice: logIdentity.dev, inode: logIdentity.ino)
            checkpointIndexIfDue()
        }
    }

    /// One batch as `write` takes it: its parts, their events as `StreamAppend.validatedData`
    /// decoded them (with their data, so nothing is encoded twice), and its folded condition.
    struct WriteBatch {
        let parts: [StreamAppend]
        let decoded: [(event: LedgerEvent, data: JSONObject)]
        let condition: (any FoldedCondition)?
    }

    /// Writes the batches in order, each line of a batch of two or more lines marked with its
    /// place in its own batch, with one `write` and one `fdatasync`, then records them; each batch's
    /// events, in order. A failed write cuts the log back and fails them all; a failed sync poisons
    /// the store and fails them all (none is retried).
    func write(_ batches: [WriteBatch], log: FileDescriptor) throws -> [[RecordedEvent]] {
        var buffer: [UInt8] = []
        let keys = try dataKeys()
        // The keys the batches make are synced together, once, before any line sealed under them
        // is written; when that sync fails none of them is kept, and nothing is written.
        keys?.syncsEachWrite = false
        defer {
            // Keys made by a write that threw before it synced them are synced (or emptied) now:
            // another writer must never find a key that may not be on disk.
            if let keys, keys.hasUnsyncedKeys { try? keys.sync() }
            keys?.syncsEachWrite = true
        }
        var pending: [(envelope: Envelope, offset: Int, length: Int)] = []
        var head = prefix.checker.head
        // Each line's id and time (never before the last line written, never going back), then
        // the keys the lines are sealed under, looked up (and the new ones made) at once.
        var ids: [String] = [], times: [Timestamp] = []
        var at = max(clock.now(), prefix.lastAt)
        var batchIDs = Set<String>()
        for _ in batches.lazy.flatMap(\.decoded) {
            // A repeated id would make the log invalid; with a sound CSPRNG this loop runs once.
            var id = Identifiers.uuid(fromRandom: idBytes.take16(from: random))
            var tries = 1
            while prefix.checker.hasSeen(id: id) || batchIDs.contains(id) {
                guard tries < 8 else { throw StoreError(.io, "the random source keeps repeating event ids; refusing to append") }
                id = Identifiers.uuid(fromRandom: idBytes.take16(from: random))
                tries += 1
            }
            batchIDs.insert(id)
            ids.append(id)
            times.append(at)
            at = max(at, clock.now())
        }
        let sealingKeys = try keys.map { keys in try groupKeys(batches, times: times, keys: keys) }
        var made = 0  // lines made so far
        let start = prefix.verifiedSize
        for batch in batches {
            let (parts, decoded) = (batch.parts, batch.decoded)
            let streams = parts.flatMap { part in part.events.map { _ in part.stream } }
            // Each line of a batch of two or more says its place in it, so a batch cut by a crash is
            // known from its last line, and readers take it as a torn tail: all or nothing.
            let marks = BatchMark.marks(count: decoded.count)
            for (position, (stream, (event, data))) in zip(streams, decoded).enumerated() {
                let batch = marks[position].isUnmarked ? nil : marks[position]
                let type = event.type
                let (id, at) = (ids[made], times[made])
                made += 1
                var (stored, v) = (data, type.currentVersion)
                if let sealingKeys {
                    let prefix = prefix
                    (stored, v) = try PersonalDataSealer.seal(data, type: type, eventID: id, at: at, keys: sealingKeys,
                                                              holder: { prefix.liveAccount(email: $0) }, known: { prefix.knowsAccount($0) },
                                                              random: random)
                }
                let body = LineCodec.body(seq: head.seq + 1, id: id, at: at, type: type.rawValue, v: v,
                                          stream: stream, batch: batch, data: stored, prev: head.hash)
                let hash = SHA256.hex(body)
                let line = LineCodec.line(body: body, hash: hash)
                pending.append((Envelope(seq: head.seq + 1, id: id, at: at, type: type.rawValue, v: v,
                                         stream: stream, batch: batch, data: stored, prev: head.hash, hash: hash), start + buffer.count, line.count))
                buffer.append(contentsOf: line)
                head = Head(seq: head.seq + 1, hash: hash)
            }
        }
        if let keys, keys.hasUnsyncedKeys {
            do { try keys.sync() } catch { throw StoreError(.io, "the key store could not be synced: \(error.message)") }
        }
        if let kept = powerCut, kept < pending.count {
            let end = pending[kept].offset - start
            try buffer.withUnsafeBytes { (raw) throws in try log.write(UnsafeRawBufferPointer(rebasing: raw[..<end]), at: start) }
            try log.syncData()
            throw StoreError(.io, "injected power loss after \(kept) of the batch's \(pending.count) lines (LEDGER_FAILPOINTS)")
        }
        do {
            try buffer.withUnsafeBytes { (raw) throws in try log.write(raw, at: start) }
        } catch {
            // Leave no half-written line: cut back to the verified end, durably. When even that
            // fails, the end of the log on disk is unknown: no more appends from this process.
            do {
                try log.truncate(to: start)
                try log.sync()
            } catch let cutBack {
                throw poison(cutBack, "the log could not be cut back after a failed write (\(error))")
            }
            throw StoreError.io(error)
        }
        do {
            try log.syncData()
        } catch {
            throw poison(error, "the last append may or may not be on disk")
        }
        // The syncs may have waited longer than the kernel keeps a borrowed table's lease once
        // someone wants to write its file, which may then have been cut under the mapping.
        if prefix.table?.holdsItsLease == false { prefix.letGoOfBorrowedTable() }
        var recorded: [[RecordedEvent]] = []
        var next = pending[...]
        for batch in batches {
            var events: [RecordedEvent] = []
            for (event, _) in batch.decoded {
                let (envelope, offset, length) = next.removeFirst()
                do {
                    let event = try prefix.checker.check(envelope, bodyHash: envelope.hash, prepared: .event(event))
                    prefix.record(event, offset: offset, length: length)
                    batch.condition?.observe(event)
                    events.append(event)
                } catch {
                    preconditionFailure("an event this store just wrote does not verify: \(error)")
                }
            }
            recorded.append(events)
        }
        return recorded
    }

    /// The keys of every subject the lines of `batches` (written at `times`) seal personal data
    /// for, made at once (`KeyStore.createKeys`: one lock, one write per run of new slots), each
    /// subject once however many lines name it; not yet synced.
    private func groupKeys(_ batches: [WriteBatch], times: [Timestamp], keys: KeyStore) throws -> PreparedKeys {
        let prefix = prefix
        var subjects: [SubjectID] = [], starting = Set<SubjectID>(), named = Set<SubjectID>()
        for (at, (event, data)) in zip(times, batches.lazy.flatMap(\.decoded)) {
            if let subject = PersonalDataSealer.subject(of: data, type: event.type, at: at, holder: { prefix.liveAccount(email: $0) }) {
                subjects.append(subject)
                if PersonalDataSealer.mayMakeKey(subject, event.type, known: { prefix.knowsAccount($0) }) {
                    starting.insert(subject)
                } else {
                    named.insert(subject)
                }
            }
        }
        do throws(KeyStoreError) {
            return PreparedKeys(made: try keys.createKeys(for: subjects, random: random, existing: named.subtracting(starting)), store: keys)
        } catch {
            throw StoreError(.io, "the key store refused the keys of \(subjects.count == 1 ? "\(subjects[0])" : "\(Set(subjects).count) subjects"): \(error.message)")
        }
    }

    /// `PowerLossDrill`: the batch's first `lines` lines, as `append` would write them, written and
    /// synced; then throws, changing nothing else (the caller kills the process).
    public func appendCutByPowerLoss(_ parts: [StreamAppend], condition: AppendCondition?, keepingLines lines: Int) throws {
        powerCut = lines
        defer { powerCut = nil }
        _ = try append(parts, condition: condition)
    }

    /// Refuses every later append of this process with `error`: after a failed fsync nothing can be
    /// assumed about what the disk holds, and going on would treat the failed fsync as if it had worked.
    func poison(_ error: any Error, _ consequence: String) -> StoreError {
        let failure = StoreError(.notDurable, "\(error): \(consequence); run `ledger recover`")
        poisoned = failure
        return failure
    }

    /// Feeds `condition` every verified event it has not seen yet.
    private func feed(_ condition: any FoldedCondition, from log: FileDescriptor) throws {
        guard condition.position < prefix.checker.head.seq else { return }
        let limit = prefix.checker.head.seq
        var checker = ChainChecker(opener: keyRing)
        do {
            try LogScanner.scan(log, checker: &checker) { item in
                guard case .event(let event, _, _) = item, event.seq <= limit else { return false }
                if event.seq > condition.position { condition.observe(event) }
                return event.seq < limit
            }
        } catch {
            throw StoreError.io(error)
        }
    }

    // MARK: - Head

    /// The last verified line's `seq` and `hash`.
    public func head() throws -> Head {
        var head = prefix.checker.head
        try withReadLock { (log) throws in
            let size = try log.size()
            guard prefix.table != nil || size < prefix.verifiedSize else {
                try catchUp(log, repairing: false)
                head = prefix.checker.head
                return
            }
            // Under the shared lock the index file is not ours to change: follow the tail on a copy.
            let from = prefix.table != nil && size >= prefix.verifiedSize ? prefix.verifiedSize : 0
            var checker = from == 0 ? ChainChecker() : prefix.checker
            checker.opener = keyRing
            var damage: LogProblem?
            try LogScanner.scan(log, from: from, checker: &checker) { item in
                switch item {
                case .event: return true
                case .problem(let problem, _, _): damage = problem; return false
                case .tornTail: return false
                }
            }
            if let damage { throw StoreError(.damaged, "the log is damaged at \(damage)", problem: damage) }
            head = checker.head
        }
        return head
    }
}
