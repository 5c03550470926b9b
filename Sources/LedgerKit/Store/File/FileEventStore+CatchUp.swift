import Glibc
import LedgerDomain

// MARK: - FileEventStore catching up

extension FileEventStore {
    /// Under the exclusive lock: maps the shared index file and sets `prefix` over it — adopting what
    /// it covers when its last covered line is still in the log, else starting over from the index's
    /// durable checkpoint when the log holds its line, else from a fresh one; `catchUp` then folds
    /// what follows. Without a usable file, `prefix` stays in memory.
    ///
    /// First, when `log` is another file than the one `prefix` verified (a log replaced at its
    /// path), `prefix` starts over: what it verified says nothing of this file.
    ///
    /// Before a cache is dropped or replaced, what the caches recorded is checked against the log:
    /// one that recorded another hash for a line the log still holds is evidence of a rewrite, not
    /// staleness, and throws `StoreError(.historyRewritten)`, every cache left as it is.
    func syncIndexFile(_ log: FileDescriptor) throws {
        guard let identity = log.identity() else { return }
        if let verified = verifiedLog, verified != identity { prefix = VerifiedPrefix() }
        verifiedLog = identity
        dropBorrowedTable()  // one left from an earlier lock hold is never touched
        guard !indexFileDisabled else { return }
        logIdentity = (identity.device, identity.inode)
        var table = prefix.table
        var created = false  // no file was at the index's path: the first writer of a folder without one
        if table?.isCurrent != true {
            var info = stat()
            created = lstat(indexPath, &info) != 0 && errno == ENOENT
            table = WritersIndex.open(path: indexPath)
        }
        guard let table else {
            indexFileDisabled = true
            if prefix.table != nil { prefix = VerifiedPrefix() }
            return
        }
        if let coverage = table.coverage(logDevice: logIdentity.dev, inode: logIdentity.ino) {
            if prefix.table === table && coverage == prefix.coverage { return }
            if let time = SavedHeadLine.verifiedTime(in: log, lineStart: coverage.lineStart, offset: coverage.offset, head: coverage.head) {
                // The time new events are stamped at least with comes from the verified line, not the
                // header: an edited header could otherwise move every later stamp, and the lockout window.
                var verified = coverage
                verified.lastAt = time
                prefix = VerifiedPrefix(table: table, coverage: verified)
                return
            }
        }
        if let rewrite = try RecordedHeads.rewrite(logPath: logPath, log: log) {
            throw StoreError(.historyRewritten, rewrite.message)
        }
        if Checkpoint.interval > 0, let (restored, coverage) = indexFromCheckpoints(log, placeholder: created ? table : nil) {
            prefix = VerifiedPrefix(table: restored, coverage: coverage)
            return
        }
        guard let fresh = WritersIndex.open(path: indexPath, fresh: true) else {
            indexFileDisabled = true
            if prefix.table != nil { prefix = VerifiedPrefix() }
            return
        }
        prefix = VerifiedPrefix(table: fresh)
    }

    /// The index rebuilt from a durable copy of it: its own checkpoint (taken over as the index file),
    /// else the one the read checkpoint carries (`CheckpointIndexSection`) — borrowed in place for
    /// `placeholder`, the empty table the first writer of a folder without an index file created
    /// (`WritersIndex+Borrowing`), else copied into a new index file; nil when neither is there and usable.
    private func indexFromCheckpoints(_ log: FileDescriptor, placeholder: WritersIndex?) -> (WritersIndex, WritersIndex.Coverage)? {
        if let restored = WritersIndex.loadCheckpoint(path: indexCheckpointPath, log: log, into: indexPath) { return restored }
        let readCheckpoint = Checkpoint.path(forLog: logPath)
        guard let section = CheckpointIndexSection.section(inCheckpoint: readCheckpoint) else { return nil }
        if let placeholder {
            switch WritersIndex.borrow(path: readCheckpoint, section: section, log: log, for: placeholder) {
            case .borrowed(let table, let coverage): return (table, coverage)
            case .refused: return nil
            case .notBorrowable: break
            }
        }
        return WritersIndex.loadCheckpoint(path: readCheckpoint, section: section, log: log, into: indexPath)
    }

    /// Releases the writers' exclusive lock, dropping first a table borrowed under it.
    func releaseWritersLock(_ lock: FileDescriptor) {
        dropBorrowedTable()
        lock.unlock()
    }

    /// Drops a borrowed table (`WritersIndex+Borrowing`) untouched, giving its file's lease back: it
    /// serves the one lock hold that borrowed it, since the read checkpoint it maps may be written
    /// over in place once the lock is released (a backup copied onto it), which a mapping would not
    /// survive. The next lock hold copies the carried index, as the next writer process would.
    func dropBorrowedTable() {
        if prefix.table?.isBorrowed == true || prefix.letGoOfBorrowed { prefix = VerifiedPrefix() }
    }

    /// Under the exclusive lock, before an append or a version lookup: the index caught up with the
    /// log (the shared index file adopted or rebuilt, what was appended since verified, a torn tail
    /// repaired), and the index file told what it now covers.
    func catchUpAsWriter(_ log: FileDescriptor) throws {
        try syncIndexFile(log)
        try catchUp(log, repairing: true)
        if prefix.lostTable {
            indexFileDisabled = true
            prefix = VerifiedPrefix()
            try catchUp(log, repairing: true)
        }
        prefix.table?.setCoverage(prefix.coverage, logDevice: logIdentity.dev, inode: logIdentity.ino)
        checkpointIndexIfDue()
        try finishErasuresTheIndexRecords(log)
    }

    /// After the index file was told what it covers: its durable checkpoint rewritten once it covers
    /// `Checkpoint.interval` events past the last one, so a writer that must start over folds at
    /// most that many lines. A failed write is not retried before the next interval: it is only a cache.
    func checkpointIndexIfDue() {
        // Not from a borrowed table: the next writer copies it and saves it then, and the borrow's
        // lock hold stays short (its lease must outlast it).
        guard let table = prefix.table, !table.isBorrowed, !prefix.lostTable, Checkpoint.interval > 0,
              prefix.checker.head.seq - table.checkpointSeq >= Checkpoint.interval else { return }
        table.checkpointSeq = prefix.checker.head.seq
        try? table.saveCheckpoint(to: indexCheckpointPath)
    }

    /// The number of events in `stream`, from the writers' index: only the lines appended since this
    /// process (or the index file) last looked are read, not the stream. Under the exclusive lock,
    /// as an append's check is; an absent log has no streams.
    public func streamVersion(_ stream: String) throws -> Int {
        try withLogCaughtUpAsWriter { _ in prefix.version(of: stream) } ?? 0
    }

    /// Runs `body` on the open log under the exclusive lock, the index caught up with it (`catchUpAsWriter`);
    /// nil, creating nothing, when there is no log.
    func withLogCaughtUpAsWriter<T>(_ body: (FileDescriptor) throws -> T) throws -> T? {
        if let poisoned { throw poisoned }
        guard FileSystem.exists(logPath) else { return nil }
        return try StoreError.mapping {
            let lock = try FileDescriptor(path: lockPath, flags: O_RDWR | O_CREAT)
            try lock.lock(LOCK_EX)
            defer { releaseWritersLock(lock) }
            let log = try FileDescriptor(path: logPath, flags: O_RDWR)
            try catchUpAsWriter(log)
            return try body(log)
        }
    }

    /// Verifies what was appended since the last look. A torn tail is repaired when `repairing`
    /// (the caller holds the exclusive lock) and skipped otherwise; any other damage throws.
    func catchUp(_ log: FileDescriptor, repairing: Bool) throws {
        try StoreError.mapping {
            let size = try log.size()
            if size < prefix.verifiedSize {  // the file was cut: start over
                prefix = VerifiedPrefix(table: prefix.table == nil ? nil : WritersIndex.open(path: indexPath, fresh: true))
            }
            guard size > prefix.verifiedSize else { return }
            var damage: LogProblem?
            var torn: (problem: LogProblem, offset: Int, length: Int)?
            var erasures: [SubjectID] = [], noted = Set<SubjectID>()
            var erasedInLog = Set<SubjectID>()
            let fromCache = prefix.verifiedSize > 0
            var checker = prefix.checker
            let opener = WriterFoldOpener(keyRing)
            checker.opener = opener
            // Lines are read in place, as `replay` and `verify` read them (the full decoder only for
            // a line that is not in canonical form): a writer that meets many lines appended by
            // others, or starts from the index checkpoint, folds each in about a microsecond.
            try LogScanner.scanFacts(log, from: prefix.verifiedSize, checker: &checker) { item in
                switch item {
                case .event(let event, let hash, let offset, let length):
                    // An erasure after what the writer took in of its subject (the index or its
                    // checkpoint, restored from a backup or written before it; or members opened with
                    // a key it destroyed): the caches go, the key too, and the fold starts over —
                    // once, after every later erasure is noted too (it reads on without folding).
                    if let erased = ViewEvent.erasedSubject(at: event) {
                        if keyRing.noteErased(erased) || fromCache || !erasures.isEmpty {
                            if noted.insert(erased).inserted { erasures.append(erased) }
                            return true
                        }
                        erasedInLog.insert(erased)
                    }
                    guard erasures.isEmpty else { return true }
                    prefix.record(event.pointee, hash: hash, offset: offset, length: length)
                    return true
                case .problem(let problem, _, _):
                    damage = problem
                    return false
                case .tornTail(let problem, let offset, let length):
                    torn = (problem, offset, length)
                    return false
                }
            }
            // A line before damage may be a forgery whose hash was made anew: nothing is destroyed for it.
            if !erasures.isEmpty, damage == nil {
                // The emails those keys still open first: their sign-in lock files go with them.
                let scan = try self.erasures(in: log)
                let emails: [String] = scan.intact ? erasures.compactMap(\.account).flatMap { Array(scan.emails[$0] ?? []) } : []
                keysDestroyedOnTheWay += try destroyHoldingLock(erasures, emails: emails, heldByLiveAccount: scan.accounts.holdsLiveAccount)
                try syncIndexFile(log)
                return try catchUp(log, repairing: repairing)
            }
            checker.opener = keyRing
            prefix.checker = checker
            // A member the fold could not open (its key missing, or another in its place) and that no
            // erasure explains: the keys were lost, and what was folded from those lines (an email
            // read as erased) must decide nothing. The caches it may have fed go, and writers refuse.
            if damage == nil, let lost = opener.lost(erasing: erasedInLog).first {
                // A key store that is not one (a link, a FIFO, a foreign file) is said as such, not as lost keys.
                try checkKeyStore()
                if repairing { try destroyHoldingLock([]) } else { prefix = VerifiedPrefix() }  // caches go under the exclusive lock only
                throw StoreError(.damaged, "the key store has no key that opens the personal data of \(lost) (and no erasure erased it): keys were lost; writers refuse until events.keys is restored — run `ledger verify`",
                                 reason: "missing-key")
            }
            if let damage {
                prefix = VerifiedPrefix()
                throw StoreError(.damaged, "the log is damaged at \(damage) — run `ledger verify`; writers refuse until it is restored", problem: damage)
            }
            if let torn, repairing {
                if try completeLine(log, torn: torn) { try catchUp(log, repairing: true) } else { try repair(log, torn: torn) }
            }
        }
    }

    /// `count` bytes of `file` from `offset` (fewer at its end).
    static func bytes(of file: FileDescriptor, at offset: Int, count: Int) throws -> [UInt8] {
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
}
