import Glibc
import LedgerDomain

// MARK: - CacheCheck

/// Checks the caches beside a log — the writers' index (`<log>.index`) and the checkpoint
/// (`<log>.checkpoint`) — against a fold of the log itself, as far as each says it covers. A cache
/// the readers or writers would not use (absent, damaged, from another boot or log, or naming a line
/// the log does not hold) is not checked: they rebuild it. A cache they would use and that disagrees
/// with the log is a `cache-mismatch` naming the file. Reads only: the caches are never changed.
///
/// Cost: one more read of the log up to the last line a cache covers, through the full decoder, with
/// the writers' index and the views folded on the way (about a replay without a checkpoint), plus a
/// copy of the index in memory.
enum CacheCheck {
    /// The problems found in the caches of the (intact) log at `path`, open as `log`.
    static func problems(logPath path: String, log: FileDescriptor) throws -> [LogProblem] {
        let indexPath = path + ".index", checkpointPath = Checkpoint.path(forLog: path)
        let index = indexSnapshot(path: indexPath, log: log)
        let checkpoint = FileSystem.exists(checkpointPath) ? Checkpoint.load(forLog: path, file: log) : nil
        guard index != nil || checkpoint != nil else { return [] }
        let indexSeq = index?.coverage.head.seq ?? 0, checkpointSeq = checkpoint?.views.head.seq ?? 0
        let last = max(indexSeq, checkpointSeq)
        let fresh = index == nil ? nil : StoreIndexFile.inMemory()
        var views = LedgerViews()
        var foldedIndex = index != nil && fresh != nil
        var checker = ChainChecker()
        checker.reserve(lines: min(last, 1 << 22))
        if let checkpoint { checker.noteIDs(lines: min(checkpointSeq, 1 << 22), seed: checkpoint.ids.seed) }
        var reached = 0, resume = 0
        var fingerprints: IDFingerprints?
        // Lines read in place, as replay reads them: up to the checkpoint's line (its ids' fingerprints
        // taken there), then on to the index's.
        func fold(from offset: Int, through stop: Int) throws {
            try LogScanner.scanFacts(log, from: offset, checker: &checker) { item in
                guard case .event(let at, let hash, let offset, let length) = item, at.pointee.seq <= stop else { return false }
                let event = at.pointee
                if event.seq <= indexSeq, foldedIndex, let fresh, !fresh.apply(event, offset: offset) { foldedIndex = false }
                if checkpoint != nil, event.seq <= checkpointSeq { views.apply(event, hash: hash) }
                reached = event.seq
                resume = offset + length
                return event.seq < stop
            }
        }
        if checkpoint != nil {
            try fold(from: 0, through: checkpointSeq)
            fingerprints = checker.idFingerprints()
        }
        if reached < last, reached == (checkpoint == nil ? 0 : checkpointSeq) { try fold(from: resume, through: last) }
        var problems: [LogProblem] = []
        if let index, let fresh, foldedIndex, reached >= indexSeq, let difference = index.table.firstDifference(from: fresh) {
            problems.append(LogProblem(line: indexSeq, kind: .cacheMismatch,
                                       message: "\(indexPath) disagrees with the log up to this line: \(difference); remove it (writers rebuild it)"))
        }
        if let checkpoint, reached >= checkpointSeq, let difference = difference(checkpoint, views: views, ids: fingerprints) {
            problems.append(LogProblem(line: checkpointSeq, kind: .cacheMismatch,
                                       message: "\(checkpointPath) disagrees with the log up to this line: \(difference); remove it (reads rebuild it)"))
        }
        return problems
    }

    /// A copy of the index at `path` with what it covers, when writers would adopt it for `log`.
    /// Copied under the writers' lock, shared, when the log's folder has one (a writer changes the
    /// file under it, exclusive).
    private static func indexSnapshot(path: String, log: FileDescriptor) -> (table: StoreIndexFile, coverage: StoreIndexFile.Coverage)? {
        guard StoreIndexFile.enabled, FileSystem.exists(path), let identity = log.identity() else { return nil }
        let lockPath = FileSystem.join(FileSystem.directoryName(path), "events.lock")
        let lock = FileSystem.exists(lockPath) ? try? FileDescriptor(path: lockPath, flags: O_RDONLY | O_NOFOLLOW) : nil
        try? lock?.lock(LOCK_SH)
        defer { lock?.unlock() }
        guard let table = StoreIndexFile.snapshot(path: path),
              let coverage = table.coverage(logDevice: identity.device, inode: identity.inode),
              CoveredLine.time(in: log, lineStart: coverage.lineStart, offset: coverage.offset, head: coverage.head) != nil
        else { return nil }
        return (table, coverage)
    }

    /// What differs between `checkpoint` and the log's fold up to its line (`views`, and the ids'
    /// fingerprints under its seed), in words; nil when nothing does. Views compare by their rows,
    /// not by how their tables are laid out.
    private static func difference(_ checkpoint: Checkpoint, views: LedgerViews, ids: IDFingerprints?) -> String? {
        let saved = checkpoint.views
        if saved.users.rows != views.users.rows || saved.users.movedAway != views.users.movedAway { return "its users view differs from the log's" }
        if saved.sessions.rows != views.sessions.rows { return "its sessions view differs from the log's" }
        if saved.images.rows != views.images.rows { return "its images view differs from the log's" }
        if saved.registrations.rows != views.registrations.rows { return "its registrations view differs from the log's" }
        if saved.signIns.rows != views.signIns.rows { return "its sign-ins view differs from the log's" }
        if saved.ruleBreaks != views.ruleBreaks { return "its account rule breaks differ from the log's" }
        if saved.events != views.events || saved.head != views.head { return "its event count or head differs from the log's" }
        if ids != checkpoint.ids { return "its event ids differ from the log's" }
        return nil
    }
}
