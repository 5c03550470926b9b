import Glibc
import LedgerDomain

// MARK: - FileEventStore reads

extension FileEventStore {
    /// Calls `body` with every event from `seq` on; a torn tail is skipped, damage throws.
    public func read(from seq: Int, _ body: (RecordedEvent) -> Bool) throws {
        try withReadLock { (log) throws in
            var checker = ChainChecker(opener: keyRing)
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
            var checker = ChainChecker(opener: keyRing)
            checker.reserve(lines: try log.size() / 450)
            var damage: LogProblem?
            var lines: [(seq: Int, offset: Int, length: Int)] = []
            do {
                try LogScanner.scanFacts(log, checker: &checker) { item in
                    switch item {
                    case .event(let event, let hash, let offset, let length):
                        visit(event.pointee, hash)
                        if wanted(event.pointee) { lines.append((event.pointee.seq, offset, length)) }
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
            for line in lines { picked.append(try Self.recordedEvent(in: log, at: line.offset, length: line.length, seq: line.seq, opener: keyRing)) }
        }
        return picked
    }

    /// Every view up to the head: from the log's checkpoint and the lines after it (unless not
    /// `usingCheckpoint`), as the read commands fold them (`ViewLoader`, which saves a newer
    /// checkpoint when it read far enough); empty views when there is no log.
    public func currentViews(now: Timestamp, usingCheckpoint: Bool) throws -> LedgerViews {
        guard FileSystem.exists(logPath) else { return LedgerViews() }
        return try ViewLoader.load(path: logPath, asOf: nil, now: now, usingCheckpoint: usingCheckpoint).views
    }

    /// True: the file store's views may come from its checkpoint.
    public var viewsMayComeFromACheckpoint: Bool { true }

    /// The event of the verified line at `offset` (`length` bytes with its newline), built whole.
    private static func recordedEvent(in log: FileDescriptor, at offset: Int, length: Int, seq: Int,
                                      opener: any PersonalDataOpener) throws -> RecordedEvent {
        var bytes = [UInt8](repeating: 0, count: length)
        let read = try bytes.withUnsafeMutableBytes { try log.read(into: $0.baseAddress!, count: length, at: offset) }
        let event = bytes.withUnsafeBufferPointer { all -> RecordedEvent? in
            guard read == length, length > 1 else { return nil }
            guard let (envelope, _) = try? LineCodec.decode(UnsafeBufferPointer(rebasing: all[0..<(length - 1)]), lineNumber: seq),
                  envelope.seq == seq, case .event(let event) = ChainChecker.prepare(envelope, opener: opener) else { return nil }
            return RecordedEvent(envelope: envelope, event: event)
        }
        guard let event else {
            let problem = LogProblem(line: seq, kind: .invalidData, message: "the line changed while it was read")
            throw StoreError(.damaged, "the log is damaged at \(problem)", problem: problem)
        }
        return event
    }

    /// Runs `body` on the open log under a shared lock; an absent log reads as empty.
    func withReadLock(_ body: (FileDescriptor) throws -> Void) throws {
        try StoreError.mapping {
            guard FileSystem.exists(logPath) else { return }
            let lock = FileSystem.exists(lockPath) ? try FileDescriptor(path: lockPath, flags: O_RDONLY) : nil
            try lock?.lock(LOCK_SH)
            defer { lock?.unlock() }
            let log = try FileDescriptor(path: logPath, flags: O_RDONLY)
            try body(log)
        }
    }
}
