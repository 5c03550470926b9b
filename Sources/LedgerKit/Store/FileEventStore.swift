import Glibc
import LedgerDomain

// MARK: - FileEventStore

/// The file backend: `events.jsonl` in the data directory, appended under an exclusive `flock`
/// on `events.lock`, one `write` per batch, fsynced before success is reported.
/// Keeps an in-process index (verified size, head, stream versions) and catches up on what
/// other processes appended each time it takes the lock.
public final class FileEventStore: EventStore {
    /// The data directory.
    public let directory: String
    /// `DIR/events.jsonl`.
    public let logPath: String
    /// `DIR/events.lock`.
    public let lockPath: String
    /// `DIR/events.jsonl.broken`: torn tails moved aside by repairs.
    public let brokenPath: String
    /// `DIR/events.jsonl.index`: stream versions and live emails for writers (see `StoreIndexFile`).
    public let indexPath: String
    /// Receives one-line notices (torn-tail repairs) meant for standard error.
    public var notice: (String) -> Void = { _ in }

    private let clock: any Clock
    private let random: any RandomSource
    private var index = LogIndex()
    private var poisoned: StoreError?
    /// Set when the index file failed this process once; it then keeps its index in memory.
    private var indexFileDisabled = !StoreIndexFile.enabled
    /// The log's (device, inode), for the index file's header.
    private var logIdentity: (dev: UInt64, ino: UInt64) = (0, 0)

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

    /// Appends `events` to `stream` as one write and one fsync, under the exclusive lock.
    public func append(_ events: [LedgerEvent], to stream: String, expected: ExpectedVersion,
                       condition: (any AppendCondition)?) throws -> [RecordedEvent] {
        if let poisoned { throw poisoned }
        guard !events.isEmpty else { throw StoreError(.invalidBatch, "an append needs at least one event") }
        guard let category = StreamName.parse(stream)?.category else {
            throw StoreError(.invalidBatch, "stream \(stream) is not <registration|session|signin>-<lowercase uuid>")
        }
        if let wrong = events.first(where: { $0.type.category != category }) {
            throw StoreError(.invalidBatch, "\(wrong.type.rawValue) does not belong in stream \(stream)")
        }
        // Data a reader would reject (e.g. an uppercase email) must never reach the log.
        for event in events {
            do {
                _ = try LedgerEvent.decode(type: event.type, data: event.data)
            } catch {
                throw StoreError(.invalidBatch, "\(event.type.rawValue) cannot be appended: \(error)")
            }
        }
        do {
            try FileSystem.makeDirectories(directory)
            let lock = try FileDescriptor(path: lockPath, flags: O_RDWR | O_CREAT)
            try lock.lock(LOCK_EX)
            defer { lock.unlock() }
            let isNew = !FileSystem.exists(logPath)
            let log = try FileDescriptor(path: logPath, flags: O_RDWR | O_CREAT)
            if isNew { try FileSystem.syncDirectory(directory) }
            syncIndexFile(log)
            try catchUp(log, repairing: true)
            if index.lostTable {
                indexFileDisabled = true
                index = LogIndex()
                try catchUp(log, repairing: true)
            }
            index.table?.setCoverage(index.coverage, logDevice: logIdentity.dev, inode: logIdentity.ino)
            let lookups: (any StoreLookups)? = index.table
            let served = lookups != nil && condition?.answersFromStoreLookups == true
            if let condition, !served { try feed(condition, from: log) }
            let version = index.version(of: stream)
            guard expected.accepts(version) else { throw StoreError.wrongVersion(stream: stream, expected: expected, actual: version) }
            if let condition, let lookups, served {
                try condition.check(events, stream: stream, lookups: lookups)
            } else {
                try condition?.check(events, stream: stream)
            }
            let recorded = try write(events, to: stream, log: log, condition: served ? nil : condition)
            if index.lostTable {
                indexFileDisabled = true
                index = LogIndex()  // the next append reads the whole log once, without the index file
            } else {
                index.table?.setCoverage(index.coverage, logDevice: logIdentity.dev, inode: logIdentity.ino)
            }
            return recorded
        } catch let error as SystemError {
            throw StoreError.io(error)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, "\(error)")
        }
    }

    private func write(_ events: [LedgerEvent], to stream: String, log: FileDescriptor,
                       condition: (any AppendCondition)?) throws -> [RecordedEvent] {
        var buffer: [UInt8] = []
        var pending: [(envelope: Envelope, offset: Int, length: Int)] = []
        var head = index.checker.head
        var at = max(clock.now(), index.lastAt)
        let start = index.verifiedSize
        var batchIDs = Set<String>()
        for event in events {
            // A repeated id would make the log invalid; with a sound CSPRNG this loop runs once.
            var id = Identifiers.uuid(fromRandom: random.bytes(16))
            var tries = 1
            while index.checker.hasSeen(id: id) || batchIDs.contains(id) {
                guard tries < 8 else { throw StoreError(.io, "the random source keeps repeating event ids; refusing to append") }
                id = Identifiers.uuid(fromRandom: random.bytes(16))
                tries += 1
            }
            batchIDs.insert(id)
            let type = event.type
            let body = LineCodec.body(seq: head.seq + 1, id: id, at: at, type: type.rawValue, v: type.currentVersion,
                                      stream: stream, data: event.data, prev: head.hash)
            let hash = SHA256.hex(body)
            let line = LineCodec.line(body: body, hash: hash)
            pending.append((Envelope(seq: head.seq + 1, id: id, at: at, type: type.rawValue, v: type.currentVersion,
                                     stream: stream, data: event.data, prev: head.hash, hash: hash), start + buffer.count, line.count))
            buffer.append(contentsOf: line)
            head = Head(seq: head.seq + 1, hash: hash)
            at = max(at, clock.now())
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
        var recorded: [RecordedEvent] = []
        for (envelope, offset, length) in pending {
            do {
                let event = try index.checker.check(envelope, bodyHash: envelope.hash)
                index.record(event, offset: offset, length: length)
                condition?.observe(event)
                recorded.append(event)
            } catch {
                preconditionFailure("an event this store just wrote does not verify: \(error)")
            }
        }
        return recorded
    }

    /// Takes the exclusive lock and repairs a torn last line, if any; true when it did.
    /// Damage before the last line throws `.damaged` and is left untouched.
    public func repairTail() throws -> Bool {
        guard FileSystem.exists(logPath) else { return false }
        do {
            let lock = try FileDescriptor(path: lockPath, flags: O_RDWR | O_CREAT)
            try lock.lock(LOCK_EX)
            defer { lock.unlock() }
            let log = try FileDescriptor(path: logPath, flags: O_RDWR)
            let before = try log.size()
            syncIndexFile(log)
            try catchUp(log, repairing: true)
            return try log.size() != before
        } catch {
            throw StoreError.io(error)
        }
    }

    // MARK: - Catching up

    /// Under the exclusive lock: maps the shared index file and lines this process's index up with
    /// it — adopting what it covers when its last covered line is still in the log, else starting a
    /// fresh one that `catchUp` fills from the whole log. Without a usable file, the index stays in memory.
    private func syncIndexFile(_ log: FileDescriptor) {
        guard !indexFileDisabled else { return }
        var info = stat()
        guard fstat(log.fd, &info) == 0 else { return }
        logIdentity = (UInt64(info.st_dev), UInt64(info.st_ino))
        var table = index.table
        if table?.isCurrent != true { table = StoreIndexFile.open(path: indexPath) }
        guard let table else {
            indexFileDisabled = true
            if index.table != nil { index = LogIndex() }
            return
        }
        if let coverage = table.coverage(logDevice: logIdentity.dev, inode: logIdentity.ino) {
            if index.table === table && coverage == index.coverage { return }
            if CoveredLine.time(in: log, lineStart: coverage.lineStart, offset: coverage.offset, head: coverage.head) != nil {
                index = LogIndex(table: table, coverage: coverage)
                return
            }
        }
        guard let fresh = StoreIndexFile.open(path: indexPath, fresh: true) else {
            indexFileDisabled = true
            if index.table != nil { index = LogIndex() }
            return
        }
        index = LogIndex(table: fresh)
    }

    /// Verifies what was appended since the last look. A torn tail is repaired when `repairing`
    /// (the caller holds the exclusive lock) and skipped otherwise; any other damage throws.
    private func catchUp(_ log: FileDescriptor, repairing: Bool) throws {
        do {
            let size = try log.size()
            if size < index.verifiedSize {  // the file was cut: start over
                index = LogIndex(table: index.table == nil ? nil : StoreIndexFile.open(path: indexPath, fresh: true))
            }
            guard size > index.verifiedSize else { return }
            var damage: LogProblem?
            var torn: (problem: LogProblem, offset: Int, length: Int)?
            var checker = index.checker
            try LogScanner.scan(log, from: index.verifiedSize, checker: &checker) { item in
                switch item {
                case .event(let event, let offset, let length):
                    index.record(event, offset: offset, length: length)
                    return true
                case .problem(let problem, _, _):
                    damage = problem
                    return false
                case .tornTail(let problem, let offset, let length):
                    torn = (problem, offset, length)
                    return false
                }
            }
            index.checker = checker
            if let damage {
                index = LogIndex()
                throw StoreError(.damaged, "the log is damaged at \(damage) — run `ledger verify`; writers refuse until it is restored", problem: damage)
            }
            if let torn, repairing { try repair(log, torn: torn) }
        } catch let error as SystemError {
            throw StoreError.io(error)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, "\(error)")
        }
    }

    /// Moves a torn tail to `events.jsonl.broken`, cuts the log back and fsyncs both.
    private func repair(_ log: FileDescriptor, torn: (problem: LogProblem, offset: Int, length: Int)) throws {
        var bytes = try Self.bytes(of: log, at: torn.offset, count: torn.length)
        if bytes.last != 0x0A { bytes.append(0x0A) }
        let broken = try FileDescriptor(path: brokenPath, flags: O_RDWR | O_CREAT | O_APPEND)
        let kept = try broken.size()
        // A repair killed after its copy but before the cut left the same bytes at the end: keep one copy.
        let copied = kept >= bytes.count && (try? Self.bytes(of: broken, at: kept - bytes.count, count: bytes.count)) == bytes
        if !copied {
            do {
                try bytes.withUnsafeBytes { (raw) throws in try broken.write(raw, at: kept) }
            } catch {
                try? broken.truncate(to: kept)  // no partial copy stays in .broken; the log still holds the tail
                throw error
            }
        }
        do {
            try broken.sync()
        } catch {
            if !copied { try? broken.truncate(to: kept) }
            throw poison(error, "the torn last line could not be kept in \(brokenPath); the log is unchanged")
        }
        try log.truncate(to: torn.offset)
        do {
            try log.sync()
            try FileSystem.syncDirectory(directory)
        } catch {
            throw poison(error, "the log was cut back to repair a torn last line, but that may not be on disk")
        }
        notice("repaired a torn last line (line \(torn.problem.line), \(torn.length) bytes never acknowledged): moved to \(brokenPath)")
    }

    /// `count` bytes of `file` from `offset` (fewer at its end).
    private static func bytes(of file: FileDescriptor, at offset: Int, count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = try out.withUnsafeMutableBytes { (raw) throws -> Int in
                try file.read(into: raw.baseAddress! + done, count: count - done, at: offset + done)
            }
            if n == 0 { break }
            done += n
        }
        return Array(out.prefix(done))
    }

    /// Refuses every later append of this process with `error`: after a failed fsync nothing can be
    /// assumed about what the disk holds, and going on would treat the failed fsync as if it had worked.
    private func poison(_ error: any Error, _ consequence: String) -> StoreError {
        let failure = StoreError(.notDurable, "\(error): \(consequence); run `ledger recover`")
        poisoned = failure
        return failure
    }

    /// Feeds `condition` every verified event it has not seen yet.
    private func feed(_ condition: any AppendCondition, from log: FileDescriptor) throws {
        guard condition.position < index.checker.head.seq else { return }
        let limit = index.checker.head.seq
        var checker = ChainChecker()
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

    // MARK: - Reads

    /// Calls `body` with every event from `seq` on; a torn tail is skipped, damage throws.
    public func read(from seq: Int, _ body: (RecordedEvent) -> Bool) throws {
        try withReadLock { (log) throws in
            var checker = ChainChecker()
            var damage: LogProblem?
            do {
                try LogScanner.scan(log, checker: &checker) { item in
                    switch item {
                    case .event(let event, _, _): return event.seq < seq || body(event)
                    case .problem(let problem, _, _): damage = problem; return false
                    case .tornTail: return false
                    }
                }
            } catch {
                throw StoreError.io(error)
            }
            if let damage { throw StoreError(.damaged, "the log is damaged at \(damage)", problem: damage) }
        }
    }

    /// Every event of `stream`, in order: the whole log is verified in place, and only the stream's
    /// lines are built whole.
    public func readStream(_ stream: String) throws -> [RecordedEvent] {
        guard let (category, id) = StreamName.parse(stream), let bits = UUIDBits(uuid: id) else { return [] }
        return try scanViews(wanted: { $0.category == category && $0.stream == bits }, visit: { _, _ in })
    }

    /// `read(from: 1)` through the in-place lane (`LogScanner.scanFacts`): every line is verified,
    /// and only the lines `wanted` picks are read again and built whole. A torn tail is skipped,
    /// damage throws.
    public func scanViews(wanted: (ViewEvent) -> Bool, visit: (ViewEvent, Digest32) -> Void) throws -> [RecordedEvent] {
        var picked: [RecordedEvent] = []
        try withReadLock { (log) throws in
            var checker = ChainChecker()
            checker.reserve(lines: try log.size() / 450)
            var damage: LogProblem?
            var lines: [(seq: Int, offset: Int, length: Int)] = []
            do {
                try LogScanner.scanFacts(log, checker: &checker) { item in
                    switch item {
                    case .event(let event, let hash, let offset, let length):
                        visit(event, hash)
                        if wanted(event) { lines.append((event.seq, offset, length)) }
                        return true
                    case .problem(let problem, _, _): damage = problem; return false
                    case .tornTail: return false
                    }
                }
            } catch {
                throw StoreError.io(error)
            }
            if let damage { throw StoreError(.damaged, "the log is damaged at \(damage)", problem: damage) }
            // Those lines verified in the scan, and the shared lock keeps the log from changing.
            for line in lines { picked.append(try Self.recordedEvent(in: log, at: line.offset, length: line.length, seq: line.seq)) }
        }
        return picked
    }

    /// The event of the verified line at `offset` (`length` bytes with its newline), built whole.
    private static func recordedEvent(in log: FileDescriptor, at offset: Int, length: Int, seq: Int) throws -> RecordedEvent {
        var bytes = [UInt8](repeating: 0, count: length)
        let read = try bytes.withUnsafeMutableBytes { try log.read(into: $0.baseAddress!, count: length, at: offset) }
        let event = bytes.withUnsafeBufferPointer { all -> RecordedEvent? in
            guard read == length, length > 1 else { return nil }
            guard let (envelope, _) = try? LineCodec.decode(UnsafeBufferPointer(rebasing: all[0..<(length - 1)]), lineNumber: seq),
                  envelope.seq == seq, case .event(let event) = ChainChecker.prepare(envelope) else { return nil }
            return RecordedEvent(envelope: envelope, event: event)
        }
        guard let event else {
            let problem = LogProblem(line: seq, kind: .invalidData, message: "the line changed while it was read")
            throw StoreError(.damaged, "the log is damaged at \(problem)", problem: problem)
        }
        return event
    }

    /// The last verified line's `seq` and `hash`.
    public func head() throws -> Head {
        var head = index.checker.head
        try withReadLock { (log) throws in
            let size = try log.size()
            guard index.table != nil || size < index.verifiedSize else {
                try catchUp(log, repairing: false)
                head = index.checker.head
                return
            }
            // Under the shared lock the index file is not ours to change: follow the tail on a copy.
            let from = index.table != nil && size >= index.verifiedSize ? index.verifiedSize : 0
            var checker = from == 0 ? ChainChecker() : index.checker
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

    /// Runs `body` on the open log under a shared lock; an absent log reads as empty.
    private func withReadLock(_ body: (FileDescriptor) throws -> Void) throws {
        do {
            guard FileSystem.exists(logPath) else { return }
            let lock = FileSystem.exists(lockPath) ? try FileDescriptor(path: lockPath, flags: O_RDONLY) : nil
            try lock?.lock(LOCK_SH)
            defer { lock?.unlock() }
            let log = try FileDescriptor(path: logPath, flags: O_RDONLY)
            try body(log)
        } catch let error as SystemError {
            throw StoreError.io(error)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, "\(error)")
        }
    }
}
