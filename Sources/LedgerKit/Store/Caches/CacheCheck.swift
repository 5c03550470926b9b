import Glibc
import LedgerDomain

// MARK: - CacheCheck

/// Checks the caches beside a log — the writers' index (`<log>.index`), its durable checkpoint
/// (`<log>.index.checkpoint`) and the checkpoint (`<log>.checkpoint`, with the writers' index it
/// may carry) — against a fold of the log itself, as far as each says it covers. A cache
/// the readers or writers would not use (absent, damaged, from another boot or log, or naming a line
/// the log does not hold) is not checked: they rebuild it. A cache they would use and that disagrees
/// with the log is a `cache-mismatch` naming the file. Reads only: the caches are never changed.
///
/// Cost: one more read of the log up to the last line a cache covers, through the full decoder, with
/// the writers' index and the views folded on the way (about a replay without a checkpoint), plus a
/// copy of the index in memory.
enum CacheCheck {
    /// The problems found in the caches of the (intact) log at `path`, open as `log`, whose erasure
    /// events up to byte `verifiedEnd` (where the verified lines end) erase `erased` (those subjects
    /// are folded as erased from every line, as the reads that wrote the caches folded them,
    /// whatever keys a restored key store brought back).
    ///
    /// Writers append, and drop or rewrite the caches, under the writers' lock, exclusive; an
    /// erasure drops them and destroys keys. So the caches are copied under that lock, shared, with
    /// the log's size then, and compared with the log as it was then: its erasures up to that size
    /// (lines appended since `verifiedEnd` are read for theirs), its members opened by a key ring
    /// opened after the copy (it holds every key made for those lines). An erasure under way (its
    /// marker, `erasure.pending`, is there: its event is appended, its keys and the caches not yet
    /// gone) is waited for, and one appended while the copies are compared may have destroyed a key
    /// the fold needed: the check is then made again from new copies (a few times; a marker left by
    /// an erasure cut short stays until the next writer finishes it, and the caches are compared
    /// with the log's erasures as they are).
    /// `pause` is how the check waits before its `attempt`-th copy (2, …) when an erasure is under
    /// way; `copied` is told each attempt once its copies are taken (tests make writers go on there).
    static func problems(logPath path: String, log: FileDescriptor, erased: Set<SubjectID>, verifiedEnd: Int,
                         pause: (_ attempt: Int) -> Void = CacheCheck.pause, copied tookCopies: (_ attempt: Int) -> Void = { _ in }) throws -> [LogProblem] {
        let indexPath = path + ".index", checkpointPath = Checkpoint.path(forLog: path)
        let savedPath = WritersIndex.checkpointPath(forIndex: indexPath)
        var later = LaterErasures(log: log, erased: erased, end: verifiedEnd)
        var attempt = 0
        while true {
            attempt += 1
            let copied = WritersLockShared.run(logPath: path) {
                let checkpoint = FileSystem.exists(checkpointPath) ? Checkpoint.load(forLog: path, file: log) : nil
                return (erasing: WritersLockShared.erasureUnderWay(logPath: path),
                 index: indexSnapshot(path: indexPath, log: log),
                 saved: WritersIndex.enabled ? WritersIndex.loadCheckpoint(path: savedPath, log: log, into: nil) : nil,
                 carried: WritersIndex.enabled ? CheckpointIndexSection.section(inCheckpoint: checkpointPath).flatMap {
                     WritersIndex.loadCheckpoint(path: checkpointPath, section: $0, log: log, into: nil)
                 } : nil,
                 checkpoint: checkpoint,
                 // A checkpoint no read takes decides nothing, but one whose seal holds was sealed so.
                 refused: checkpoint == nil && FileSystem.exists(checkpointPath) ? Checkpoint.sealedRefusal(forLog: path) : nil,
                 size: (try? log.size()) ?? verifiedEnd)
            }
            if copied.erasing, attempt < Self.attempts {
                // An erasure between its event and its keys' destruction: the caches it drops next
                // still hold what the event erases.
                pause(attempt + 1)
                continue
            }
            tookCopies(attempt)
            try later.read(upTo: copied.size)
            let erasedThen = later.erased
            let writers = "remove it (writers rebuild it)"
            let indexes: [IndexCopy] = [copied.index.map { ($0.table, $0.coverage, indexPath, writers) },
                                        copied.saved.map { ($0.table, $0.coverage, savedPath, writers) },
                                        copied.carried.map { ($0.table, $0.coverage, "the writers' index \(checkpointPath) carries",
                                                              "remove \(checkpointPath) (reads rebuild it)") }].compactMap { $0 }
            var problems = try problems(log: log, indexes: indexes, checkpoint: copied.checkpoint,
                                        naming: "\(checkpointPath) disagrees with the log up to this line", remedy: "remove it (reads rebuild it)",
                                        opener: LogErasuresOpener(base: KeyRing(directory: FileSystem.directoryName(path)), erased: erasedThen))
            if let refused = copied.refused {
                problems.append(LogProblem(line: 0, kind: .cacheMismatch,
                                           message: "\(checkpointPath) is sealed but holds what no log folds to (\(refused)): no read takes it; remove it (reads rebuild it)"))
            }
            if copied.erasing {
                // Left by an erasure cut short: the caches go when the next writer finishes it.
                return problems.map { LogProblem(line: $0.line, kind: $0.kind, message: $0.message + Self.erasureCutShort) }
            }
            guard !problems.isEmpty, attempt < Self.attempts else { return problems }
            try later.read(upTo: (try? log.size()) ?? copied.size)
            if later.erased == erasedThen { return problems }
        }
    }

    /// How many times the caches are copied and compared while erasures keep being appended.
    static let attempts = 6

    /// The wait before the `attempt`-th copy while an erasure is under way: 25 ms, doubled each
    /// time (under 0.8 s in all; an erasure's own process finishes within milliseconds).
    static func pause(_ attempt: Int) { usleep(useconds_t(25_000 << max(0, min(attempt - 2, 8)))) }

    /// What a mismatch found beside an erasure's marker adds.
    static let erasureCutShort = "; an erasure was cut short (erasure.pending): the next writer, or `ledger recover`, finishes it and drops the caches"

    /// The erasures of a log's lines up to a byte, read again from the first line, their chain
    /// checked, each time a line past the last limit is asked for (a scan stops only after its
    /// checker has taken the line past the limit: it never resumes from there).
    private struct LaterErasures {
        let log: FileDescriptor
        /// The subjects the erasure events of the lines read name.
        private(set) var erased: Set<SubjectID>
        /// The bytes read up to.
        private var end: Int

        init(log: FileDescriptor, erased: Set<SubjectID>, end: Int) {
            self.log = log
            self.erased = erased
            self.end = end
        }

        /// Reads the intact lines that end by byte `limit` for their erasures.
        mutating func read(upTo limit: Int) throws {
            guard limit > end else { return }
            // The members need not be opened: an erasure event holds no personal data.
            var checker = ChainChecker(opener: SealedOpener())
            var erased = erased
            try LogScanner.scanFacts(log, checker: &checker) { item in
                guard case .event(let event, _, let offset, let length) = item, offset + length <= limit else { return false }
                if let subject = ViewEvent.erasedSubject(at: event) { erased.insert(subject) }
                return true
            }
            self.erased = erased
            end = limit
        }
    }

    /// The problem of the checkpoint a PostgreSQL store keeps, against the store's lines `log`
    /// (streamed from the first, read once).
    static func problems(storedCheckpoint checkpoint: Checkpoint, log: any LogBytes, opener: any PersonalDataOpener) throws -> [LogProblem] {
        try problems(log: log, indexes: [], checkpoint: checkpoint,
                     naming: "the checkpoint the PostgreSQL store keeps (ledger_checkpoints, seq \(checkpoint.views.head.seq)) disagrees with the log up to this line",
                     remedy: "delete its row (reads rebuild it)", opener: opener)
    }

    /// A copy of the writers' index, what it covers, the file it is in (in words) and what to do
    /// when it disagrees with the log.
    typealias IndexCopy = (table: WritersIndex, coverage: WritersIndex.Coverage, path: String, remedy: String)

    /// The problems of the caches given, each compared with the log folded up to its line.
    private static func problems(log: any LogBytes, indexes: [IndexCopy], checkpoint loaded: Checkpoint?,
                                 naming: String, remedy: String, opener: any PersonalDataOpener) throws -> [LogProblem] {
        // The checkpoint is kept as its digest, so its views and the log's are never in memory together.
        let checkpoint = loaded.map { SavedCheckpoint(seq: $0.views.head.seq, ids: $0.ids, digest: digest($0.views, ids: $0.ids)) }
        guard !indexes.isEmpty || checkpoint != nil else { return [] }
        let checkpointSeq = checkpoint?.seq ?? 0
        // One table folds the log for every copy of the index, compared each at its own line.
        let tableSeq = indexes.map(\.coverage.head.seq).max() ?? 0
        let fresh = tableSeq == 0 ? nil : WritersIndex.inMemory(capacity: indexes.map(\.table.capacity).max() ?? 0)
        var views = LedgerViews()
        var foldedIndex = fresh != nil
        var checker = ChainChecker(opener: opener)
        checker.reserve(lines: min(max(tableSeq, checkpointSeq), 1 << 22))
        // The chain was verified already: the ids need only their fingerprints, no set.
        if let checkpoint { checker.deferIDChecks(lines: min(checkpointSeq, 1 << 22), seed: checkpoint.ids.seed) }
        var reached = 0, resume = 0
        var latest = Timestamp(millis: 0)  // the latest time of the lines the table folded
        var fingerprints: IDFingerprints?
        var problems: [LogProblem] = []
        // Lines read in place, as replay reads them, stopping at each cache's line to compare it
        // (the checkpoint's ids' fingerprints taken at its line).
        for stop in Set([checkpointSeq] + indexes.map(\.coverage.head.seq)).filter({ $0 > 0 }).sorted() {
            try LogScanner.scanFacts(log, from: resume, checker: &checker) { item in
                guard case .event(let at, let hash, let offset, let length) = item, at.pointee.seq <= stop else { return false }
                let event = at.pointee
                if event.seq <= tableSeq, foldedIndex, let fresh {
                    if !fresh.apply(event, hash: hash, offset: offset) { foldedIndex = false }
                    latest = max(latest, event.at)
                }
                if checkpoint != nil, event.seq <= checkpointSeq { views.apply(event, hash: hash) }
                reached = event.seq
                resume = offset + length
                return event.seq < stop
            }
            guard reached == stop else { break }
            if stop == checkpointSeq { fingerprints = checker.idFingerprints() }
            if let fresh, foldedIndex {
                for copy in indexes where copy.coverage.head.seq == stop {
                    if let problem = mismatch(copy, fresh, latest: latest) { problems.append(problem) }
                }
            }
        }
        if let checkpoint, reached >= checkpointSeq, let difference = checkpoint.difference(digest(views, ids: checkpoint.ids), ids: fingerprints) {
            problems.append(LogProblem(line: checkpointSeq, kind: .cacheMismatch,
                                       message: "\(naming): \(difference); \(remedy)"))
        }
        return problems
    }

    /// The `cache-mismatch` of a copy of the writers' index against `fresh`, the log folded up to the
    /// line it covers (whose latest time is `latest`); nil when they agree.
    private static func mismatch(_ copy: IndexCopy, _ fresh: WritersIndex, latest: Timestamp) -> LogProblem? {
        // New events are stamped no earlier than this time: one later than the log's would move
        // every stamp, and the lockout window with them.
        let difference = copy.coverage.lastAt > latest ? "its header's last time is later than any line's" : copy.table.firstDifference(from: fresh)
        return difference.map {
            LogProblem(line: copy.coverage.head.seq, kind: .cacheMismatch,
                       message: "\(copy.path) disagrees with the log up to this line: \($0); \(copy.remedy)")
        }
    }

    /// A copy of the index at `path` with what it covers, when writers would adopt it for `log`
    /// (taken under the writers' lock: a writer changes the file under it, exclusive).
    private static func indexSnapshot(path: String, log: FileDescriptor) -> (table: WritersIndex, coverage: WritersIndex.Coverage)? {
        guard WritersIndex.enabled, FileSystem.exists(path), let identity = log.identity(),
              let table = WritersIndex.snapshot(path: path),
              let coverage = table.coverage(logDevice: identity.device, inode: identity.inode),
              SavedHeadLine.verifiedTime(in: log, lineStart: coverage.lineStart, offset: coverage.offset, head: coverage.head) != nil
        else { return nil }
        return (table, coverage)
    }

    /// What a checkpoint holds, as compared: its line, its ids' fingerprints and its views' digest.
    private struct SavedCheckpoint {
        var seq: Int
        var ids: IDFingerprints
        var digest: [String]

        /// What differs from the log's fold up to the checkpoint's line, in words; nil when nothing does.
        func difference(_ folded: [String], ids folding: IDFingerprints?) -> String? {
            if let part = zip(CacheCheck.parts, zip(digest, folded)).first(where: { $0.1.0 != $0.1.1 })?.0 {
                return "its \(part) differ from the log's"
            }
            return folding == ids ? nil : "its event ids differ from the log's"
        }
    }

    /// What `digest` covers, in its order.
    static let parts = ["users", "sessions", "images", "registrations", "sign-in failures", "account rule breaks", "account changes and revoked sessions",
                        "event count and head", "saved state (what a read restores, e.g. each email's last account)"]

    /// SHA-256 of each part of `views`, by its rows (not by how its tables are laid out), then of all
    /// a checkpoint of them would hold (with `ids`, the same for both sides): everything a read
    /// restores from the file, each account's creation seq and registration included.
    static func digest(_ views: LedgerViews, ids: IDFingerprints) -> [String] {
        func hashed(_ write: (@escaping (UnsafeRawBufferPointer) -> Void) -> Void) -> String {
            let sha = SHA256Stream()
            write { sha.update($0) }
            return sha.finalize()
        }
        func text(_ lines: some Sequence<String>) -> String {
            hashed { sink in for var line in lines { line.withUTF8 { sink(UnsafeRawBufferPointer($0)) } } }
        }
        return [
            hashed { ViewRowsWriter.users(views.users, sink: $0) } + text(views.users.movedAway.sorted { $0.key < $1.key }.map { "\($0.key.text) \($0.value.uuidString)\n" }),
            hashed { ViewRowsWriter.sessions(views.sessions, at: Timestamp(millis: 0), sink: $0) },
            hashed { ViewRowsWriter.images(views.images, sink: $0) },
            hashed { ViewRowsWriter.registrations(views.registrations, sink: $0) },
            hashed { sink in
                views.signIns.forEachRow { row in
                    var line = "\(row.email) \(row.failures) \(row.recentFailures.map { String($0.millis) })\n"
                    line.withUTF8 { sink(UnsafeRawBufferPointer($0)) }
                }
            },
            text(views.ruleBreaks.lazy.map { "\($0.kind.rawValue) \($0.seq) \($0.uid.uuidString)\n" }),
            text(views.accountChanges.changes.map { JSONWriter.string($0.json) + "\n" } + views.accountChanges.revoked.map { JSONWriter.string($0.json) + "\n" }),
            text(["\(views.events) \(views.head.seq):\(views.head.hash)"]),
            hashed { CheckpointWriter.write(views, ids: ids, sink: $0) },
        ]
    }
}
