import Glibc
import LedgerDomain

// MARK: - VerifyReport

/// The outcome of verifying a whole log file.
public struct VerifyReport: Equatable, Sendable {
    /// Complete lines checked (a torn tail is not counted).
    public var events = 0
    /// The head of the intact prefix: the last line before the first problem.
    public var head = Head.empty
    /// Problems found, in line order (at most `maxProblems`).
    public var problems: [LogProblem] = []

    /// True when no problem was found.
    public var ok: Bool { problems.isEmpty }
}

// MARK: - LogVerifier

/// Verifies a log file from its first byte: JSON, envelope, `seq`, hashes, chain, types and data.
public enum LogVerifier {
    /// Problems kept in a report; counting goes on past it.
    public static let maxProblems = 100

    /// Verifies the log at `path`. Throws `SystemError` when it cannot be read.
    ///
    /// Each head of `anchors` (one recorded earlier, `--expect SEQ:HASH`) must be a line of the
    /// intact log with that hash, else a `head-mismatch`. With `checkingCaches`, the caches beside an
    /// intact log are checked against it too (`CacheCheck`: any disagreement is a `cache-mismatch`),
    /// and a line a cache recorded that the intact log holds with another hash is a `history-rewritten`.
    public static func verify(path: String, expecting anchors: [Head] = [], checkingCaches: Bool = false) throws -> VerifyReport {
        try verify(.file(path), expecting: anchors, checkingCaches: checkingCaches)
    }

    /// `verify(path:…)` for any log source. A PostgreSQL store's caches are its account-state tables,
    /// folded as the lines are verified, and the checkpoint it keeps, checked by a second read up to its line.
    public static func verify(_ source: LogSource, expecting anchors: [Head] = [], checkingCaches: Bool = false) throws -> VerifyReport {
        // Ids are checked once at the end; on a maybe (a repeated id: damage) the log is read again
        // with the per-line check, which names the line.
        // The lines the caches beside a log file recorded (`HistoryRewrite`), found on the way as anchors are.
        var recorded: [RecordedHead] = []
        if checkingCaches {
            switch source {
            case .file(let path): recorded = RecordedHeads.of(logPath: path).filter { $0.intact() }
            case .postgres(let store): recorded = try store.recordedHeads()  // each one's seal checked when it disagrees
            }
        }
        let wanted = Set(anchors.map(\.seq) + recorded.map(\.head.seq))
        var found: [Int: Digest32] = [:]
        var verifiedEnd = 0  // where the intact prefix's last line ends
        var accounts: PostgresAccountCheck?
        // The account tables of a PostgreSQL store are folded with the log's erasures winning: a
        // pass that opened an erased subject's members (a `ledger_keys` row restored from a backup)
        // is compared again with such a fold (`accountsAgree`).
        let watch = checkingCaches && source.isPostgres ? OpenedSubjects(source.opener) : nil
        // The rows whose `id` or `stream` column the lines' stream could not match by text.
        let columns = checkingCaches && source.isPostgres ? ColumnSuspects() : nil
        var keys = MissingKeys(watch ?? source.opener)
        var erased: Set<SubjectID> = []
        var erasedOn: [SubjectID: Int] = [:]  // the line of each subject's first erasure event
        func pass(deferringIDs: Bool) throws -> VerifyReport? {
            found = [:]
            keys = MissingKeys(watch ?? source.opener)
            erased = []
            erasedOn = [:]
            if checkingCaches, case .postgres(let store) = source { accounts = try PostgresAccountCheck(store) }
            columns?.reset()
            return try verify(source, deferringIDs: deferringIDs, anchors: wanted, found: &found, end: &verifiedEnd, opener: keys, columns: columns) { event in
                if let subject = ViewEvent.erasedSubject(at: event), erased.insert(subject).inserted { erasedOn[subject] = event.pointee.seq }
                accounts?.visit(event)
            }
        }
        var verified = try pass(deferringIDs: true) ?? pass(deferringIDs: false) ?? VerifyReport()
        let intact = verified.ok
        if intact { verified.problems += try keys.problems(source, erased: erased) }
        // A key the log erased is looked for whatever else is lost: a key store restored from a
        // backup lacks the keys made since (`missing-key`) and holds those erased since.
        var waitedForTheMarker = false  // an erasure cut short, already waited for
        if checkingCaches && intact {
            switch source {
            case .file(let path):
                let restored = ErasedKeys.problems(logPath: path, keyStore: KeyRing.forLog(path).path, erasedOn: erasedOn)
                verified.problems += restored.problems
                waitedForTheMarker = restored.markerStays
            case .postgres(let store):
                verified.problems += try ErasedKeys.problems(store: store, erasedOn: erasedOn)
            }
            // The Merkle tree's state holds hashes of lines, nothing a key opens: checked beside a
            // lost key too (on PostgreSQL it is the evidence of a rewritten history).
            verified.problems += try TreeCheck.problems(source)
        }
        if checkingCaches && verified.problems.allSatisfy({ $0.kind == .erasedKeyPresent || $0.kind == .historyRewritten || $0.kind == .cacheMismatch }) {
            switch source {
            case .file(let path):
                verified.problems += try CacheCheck.problems(logPath: path, log: try FileDescriptor(path: path, flags: O_RDONLY), erased: erased,
                                                               verifiedEnd: verifiedEnd, pause: waitedForTheMarker ? { _ in } : CacheCheck.pause)
            case .postgres(let store):
                if erased.contains(where: { watch?.wasOpened($0) == true }) {
                    // The first fold read erased data: only the one where the erasures win decides.
                    if accounts != nil, let problem = try accountsProblem(store, erased: erased) {
                        verified.problems.append(problem)
                    }
                } else if let problem = try accounts?.problem() {
                    verified.problems.append(problem)
                }
                // The envelope columns beside the lines, which appends decide on.
                verified.problems += try PostgresColumnCheck.problems(store, suspects: columns?.seqs ?? [], limit: maxProblems)
                verified.problems += try PostgresPositionCheck.problems(store, suspects: columns?.misnumbered ?? [], limit: maxProblems)
                if let checkpoint = store.storedCheckpoint(checkingCache: true) {
                    verified.problems += try CacheCheck.problems(storedCheckpoint: checkpoint, log: try source.open(usingCheckpoint: false).bytes,
                                                                   opener: LogErasuresOpener(base: source.opener, erased: erased))
                }
            }
        }
        for rewrite in recorded.compactMap({ cache in
            HistoryRewrite.evidence(cache: cache.cache, recorded: cache.head, found: found[cache.head.seq]?.hex).flatMap { cache.intact() ? $0 : nil }
        }) {
            verified.problems.append(LogProblem(line: rewrite.seq, kind: .historyRewritten, message: rewrite.message))
        }
        // A cache names a line past the log's end (stale, or a rewrite whose tail was dropped): the
        // lines the writers' index recorded, slot by slot, against the intact log.
        if checkingCaches, verified.ok, !verified.problems.contains(where: { $0.kind == .historyRewritten }), case .file(let path) = source,
           recorded.contains(where: { $0.head.seq > verified.head.seq }),
           let rewrite = RecordedIndexLines.rewrite(logPath: path, log: try FileDescriptor(path: path, flags: O_RDONLY), intactEnd: try FileDescriptor(path: path, flags: O_RDONLY).size()) {
            verified.problems.append(LogProblem(line: max(rewrite.seq, 1), kind: .historyRewritten, message: rewrite.message))
        }
        for anchor in anchors { if let problem = mismatch(anchor, found: found[anchor.seq], head: verified.head) { verified.problems.append(problem) } }
        // In line order, as the report promises (each check adds its own; a stable sort keeps a line's in the order found).
        verified.problems = verified.problems.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
        return verified
    }

    /// The problem of the account tables of `store` against a fold of its log whose erasures win
    /// (`LogErasuresOpener`): what the tables are folded from. The first pass folded each member as
    /// the key store opened it, so a key restored from a backup taken before an erasure gave it the
    /// erased data; read again only then.
    private static func accountsProblem(_ store: PostgresEventStore, erased: Set<SubjectID>) throws -> LogProblem? {
        let source = LogSource.postgres(store)
        let accounts = try PostgresAccountCheck(store)
        var found: [Int: Digest32] = [:], end = 0
        _ = try verify(source, deferringIDs: true, anchors: [], found: &found, end: &end,
                       opener: LogErasuresOpener(base: source.opener, erased: erased), visit: { accounts.visit($0) })
        return try accounts.problem()
    }

    /// The `head-mismatch` of `anchor`, given the hash of its line in the intact log (nil when the
    /// intact log does not reach it) and that log's head; nil when the line has the recorded hash.
    private static func mismatch(_ anchor: Head, found: Digest32?, head: Head) -> LogProblem? {
        let recorded = "\(anchor.seq):\(anchor.hash)"
        guard let found else {
            return LogProblem(line: anchor.seq, kind: .headMismatch,
                              message: "the intact log ends at seq \(head.seq), before the recorded head \(recorded): it was cut, or is damaged below it")
        }
        guard found.hex != anchor.hash else { return nil }
        return LogProblem(line: anchor.seq, kind: .headMismatch,
                          message: "line \(anchor.seq) has hash \(found.hex), not the recorded \(anchor.hash): the history up to it was rewritten")
    }

    /// `verify`, checking ids at the end (`deferringIDs`; nil when they may repeat) or per line,
    /// noting in `found` the hash of each line of the intact prefix whose seq is in `anchors` and in
    /// `end` where its last line ends, and passing each event of that prefix to `visit`.
    private static func verify(_ source: LogSource, deferringIDs: Bool, anchors: Set<Int>, found: inout [Int: Digest32], end: inout Int,
                               opener: any PersonalDataOpener, columns: ColumnSuspects? = nil,
                               visit: ((UnsafePointer<ViewEvent>) -> Void)?) throws -> VerifyReport? {
        let opened: LogSource.Opened
        if let columns, case .postgres(let store) = source {
            opened = LogSource.Opened(bytes: try PostgresLineStream(store.url, from: 1, columns: columns), start: 0, total: 0,
                                      lines: try store.lastRowSeq(), checkpoint: nil)
        } else {
            opened = try source.open(usingCheckpoint: false)
        }
        var report = VerifyReport()
        var checker = ChainChecker(opener: opener)
        if deferringIDs {
            checker.deferIDChecks(lines: opened.lines)
        } else {
            checker.reserve(lines: opened.lines)
        }
        // The head of the intact prefix, as bits until the end.
        var head: (seq: Int, hash: Digest32)?
        do {
            try scan(opened.bytes, &checker, &report, &head, anchors: anchors, found: &found, end: &end, visit: visit)
        } catch let error as StoreError where error.code == .damaged && error.problem != nil {
            // The store's rows themselves do not hold one line each in `seq` order: the stream stops
            // there, and the chunks the scanner read ahead of it are gone. The lines before it are
            // read again, up to it, so the report's head and count are those of the rows that hold
            // (whole batches: one the bound cuts is not a torn tail of the store).
            var problem = error.problem!
            guard case .postgres(let store) = source else { throw error }
            // Rows changed while this ran may meet the second read earlier: that row is then the
            // first damage, and the read goes again up to it (a few times at most).
            for attempt in 1...4 {
                report = VerifyReport()
                head = nil
                checker = ChainChecker(opener: opener)
                checker.reserve(lines: max(0, problem.line - 1))
                do {
                    try scan(try PostgresLineStream(store.url, from: 1, before: problem.line), &checker, &report, &head,
                             anchors: anchors, found: &found, end: &end, visit: visit)
                    break
                } catch let again as StoreError where again.code == .damaged && again.problem.map({ $0.line < problem.line }) == true {
                    problem = again.problem!
                    if attempt == 4 { report = VerifyReport(); head = nil }
                }
            }
            report.problems.removeAll { $0.kind == .tornTail }
            if report.problems.count < maxProblems { report.problems.append(problem) }
            if let head { report.head = Head(seq: head.seq, hash: head.hash.hex) }
            return report
        }
        if checker.idsMayRepeat() { return nil }
        if let head { report.head = Head(seq: head.seq, hash: head.hash.hex) }
        return report
    }

    /// The scan of `verify`, adding to `report` and keeping the intact prefix's `head`.
    private static func scan(_ bytes: any LogBytes, _ checker: inout ChainChecker, _ report: inout VerifyReport,
                             _ head: inout (seq: Int, hash: Digest32)?, anchors: Set<Int>, found: inout [Int: Digest32], end: inout Int,
                             visit: ((UnsafePointer<ViewEvent>) -> Void)?) throws {
        try LogScanner.scanFacts(bytes, checker: &checker) { item in
            switch item {
            case .event(let event, let hash, let offset, let length):
                report.events += 1
                if report.problems.isEmpty {
                    head = (event.pointee.seq, hash)
                    end = offset + length
                    visit?(event)
                    if !anchors.isEmpty, anchors.contains(event.pointee.seq) { found[event.pointee.seq] = hash }
                }
            case .problem(let problem, _, _):
                report.events += 1
                if report.problems.count < maxProblems { report.problems.append(problem) }
            case .tornTail(let problem, _, _):
                if report.problems.count < maxProblems { report.problems.append(problem) }
            }
            return true
        }
    }
}
