import Glibc
import LedgerDomain

// MARK: - LoadedViews

/// Views folded from a log, with the instant they stand at and any torn tail skipped.
public struct LoadedViews {
    /// The views.
    public var views: LedgerViews
    /// The as-of instant: the given time, the time of the given event, or now.
    public var asOfTime: Timestamp
    /// The torn last line that was skipped, if any.
    public var tornTail: LogProblem?
    /// The seq of the last erasure event (`PersonalDataErased`) the read met, 0 when it met none
    /// (`LogSource.finishErasures` takes it).
    public var lastErasureSeq = 0
    /// The last account erasures the checkpoint the read started from records (it met none of
    /// them): `LogSource.finishErasures` asks the key store about them.
    public var recordedErasures: [RecordedErasure] = []
}

// MARK: - ViewLoader

/// Replays a log file into the views, verifying every line; damage throws `StoreError(.damaged)`.
public enum ViewLoader {
    /// Folds the log at `path` up to `asOf` (the whole log when nil). `progress` is called every
    /// 64 Ki events with the bytes read so far, the file's size and the events applied.
    /// A read that cannot save a checkpoint (`--as-of`, checkpoints off, or a checkpoint whose tail
    /// cannot reach the interval) folds only the views in `selection` and leaves the others empty;
    /// one that can folds them all, as a checkpoint holds all.
    /// Without `usingCheckpoint`, the whole log is folded (what must not rest on a cache's word).
    public static func load(path: String, asOf: AsOf?, now: Timestamp, views selection: LedgerViews.Selection = .all,
                            usingCheckpoint: Bool = true,
                            progress: ((_ bytes: Int, _ total: Int, _ events: Int) -> Void)? = nil) throws -> LoadedViews {
        try load(.file(path), asOf: asOf, now: now, views: selection, usingCheckpoint: usingCheckpoint, progress: progress)
    }

    /// `load(path:…)` for any log source (`total` is 0 in `progress` when the length is unknown).
    public static func load(_ source: LogSource, asOf: AsOf?, now: Timestamp, views selection: LedgerViews.Selection = .all,
                            usingCheckpoint: Bool = true,
                            progress: ((_ bytes: Int, _ total: Int, _ events: Int) -> Void)? = nil) throws -> LoadedViews {
        // Ids are checked once, at the end of the read (`ChainChecker.deferIDChecks`), against every
        // id before them (a checkpoint carries their fingerprints); a maybe (a repeated id: damage)
        // means reading the whole log again with the per-line check, which names the line
        // (`progress` then reports the second read from its start).
        // A read that meets an erasure after what it took in of that subject reads on to note every
        // later erasure, then starts over from the first line, those subjects erased: once, however
        // many there are (again only for an erasure appended meanwhile, so it ends).
        try source.checkKeyStore()
        var usingCheckpoint = usingCheckpoint, deferringIDs = true
        while true {
            do {
                return try load(source, asOf: asOf, now: now, selection: selection, usingCheckpoint: usingCheckpoint,
                                deferringIDs: deferringIDs, progress: progress)
            } catch let erasure as ErasureAfterWhatWasRead {
                // A checkpoint taken in before an erasure of its subjects holds what was erased
                // (a backup brought it back, or the erasure could not drop it): it goes now.
                if erasure.pastCheckpoint { source.dropCheckpoint() }
                usingCheckpoint = false
            } catch is RepeatedIDSeen {
                usingCheckpoint = false
                deferringIDs = false
            }
        }
    }

    /// The most erasures before a checkpoint whose subjects a read from it asks the key store about.
    static let erasuresAskedAbout = 1024

    /// A read from `checkpoint` meets none of the erasures before it: it keeps the last
    /// `erasuresAskedAbout` of them, for `LogSource.finishErasures` to find a key store, or writers'
    /// index files, restored from a backup taken before them. Nothing is noted as erased because
    /// of them (the checkpoint is a cache: what it says is looked up in the log first).
    private static func noteErasures(recordedBy checkpoint: Checkpoint, source: LogSource, into loaded: inout LoadedViews) {
        guard source.mayHoldKeys else { return }
        loaded.recordedErasures = Array(checkpoint.erasures.suffix(erasuresAskedAbout))
    }

    /// A line's id repeated an earlier one's in a read that deferred the id check.
    private struct RepeatedIDSeen: Error {}

    /// A `PersonalDataErased` came after what the read had taken in of its subject (a checkpoint,
    /// or members opened with a key it destroyed): the read starts over from the first line.
    private struct ErasureAfterWhatWasRead: Error {
        /// True when the read had started from a checkpoint that the erasure came after.
        var pastCheckpoint: Bool
    }

    /// `load`, checking ids at the end (`deferringIDs`; throws `RepeatedIDSeen` on a maybe) or per line.
    private static func load(_ source: LogSource, asOf: AsOf?, now: Timestamp, selection: LedgerViews.Selection, usingCheckpoint: Bool, deferringIDs: Bool,
                             progress: ((_ bytes: Int, _ total: Int, _ events: Int) -> Void)?) throws -> LoadedViews {
        var loaded = LoadedViews(views: LedgerViews(), asOfTime: now)
        // A checkpoint serves reads of the head, or of a seq at or after it. The strict read starts
        // from the first line: a checkpoint knows the ids before it only as fingerprints.
        // A read whose tail cannot reach the checkpoint interval cannot save a new checkpoint either:
        // it restores only the views it prints, and looks its ids up among the checkpoint's where
        // the file keeps them instead of holding 8 bytes an event.
        let interval = Checkpoint.interval
        let opened = try source.open(usingCheckpoint: usingCheckpoint && asOf?.mayUseCheckpoints != false,
                                     views: { tailLines in asOf != nil || tailLines < interval ? selection : .all },
                                     fingerprintsInPlace: { tailLines in asOf != nil || tailLines < interval }) { found in
            asOf.map { $0.mayStart(fromCheckpointAt: found.views.head.seq) } ?? true
        }
        let (checkpoint, start, total) = (opened.checkpoint, opened.start, opened.total)
        // A read of many lines opens the members of many subjects: the key store is read whole,
        // on a thread of its own, while the first lines are read (the ring counts its lookups
        // otherwise, and reads it under its lock once they are many).
        let keys = opened.lines >= KeyRing.linesWorthPreloading ? (source.opener as? KeyRing)?.preload() : nil
        defer { keys?.join() }
        var checker = ChainChecker(opener: source.opener)
        if let checkpoint {
            loaded.views = checkpoint.views
            checker = ChainChecker(continuingAfter: checkpoint.views.head)
            checker.opener = source.opener
            noteErasures(recordedBy: checkpoint, source: source, into: &loaded)
        }
        if asOf != nil || interval == 0 { loaded.views.narrow(to: selection) }
        // The lines read in place open only the personal members the views folded read.
        checker.opener = ViewsOpener(base: source.opener, selection: loaded.views.selection)
        // Sizing the id set once for the lines ahead spares its rehashes.
        if deferringIDs {
            checker.deferIDChecks(lines: opened.lines, after: checkpoint?.ids)
        } else {
            checker.reserve(lines: opened.lines)
            checker.noteIDs(lines: opened.lines)
        }
        var damage: LogProblem?
        var erasureAfterWhatWasRead = false, pastAsOf = false, metErasure = false
        let watchesErasures = asOf != nil && source.mayHoldKeys
        var lastIncludedAt: Timestamp?
        var lastLine: (start: Int, end: Int)?
        // The fold's lookups of the line a few ahead are asked for as this one is folded (their
        // index slots 8 lines ahead, the rows those lead to 4 lines ahead).
        // (Kept behind a pointer both closures capture as a constant: a captured variable would be
        // boxed, each access checked for exclusivity, on every line.)
        let ahead = UnsafeMutablePointer<UnsafePointer<ViewEvent>?>.allocate(capacity: 2)
        ahead.initialize(repeating: nil, count: 2)
        defer { ahead.deallocate() }
        try LogScanner.scanFacts(opened.bytes, from: start, checker: &checker, lookahead: { ahead[0] = $0 }, nearLookahead: { ahead[1] = $0 }) { item in
            switch item {
            case .event(let event, let hash, let offset, let length):
                let (seq, at) = (event.pointee.seq, event.pointee.at)
                if let progress, seq & 0xFFFF == 0 { progress(offset + length, total, loaded.views.events) }
                if ViewEvent.erasedSubject(at: event) != nil { loaded.lastErasureSeq = seq }
                if erasureAfterWhatWasRead || pastAsOf {
                    // Past the as-of point only an erasure matters: of a subject read before it (with
                    // a key a restored key store brought back), it means reading again without it.
                    // Once the read is to start over, it reads on only to note every later erasure
                    // too, so that it starts over once, not once per erased subject.
                    if let erased = ViewEvent.erasedSubject(at: event), source.opener.noteErased(erased) {
                        erasureAfterWhatWasRead = true
                    }
                    return true
                }
                // An erasure after what was read (a checkpoint, or members opened with a key the
                // erasure destroyed: a key store restored from a backup) means reading again from
                // the first line, that subject erased.
                if let erased = ViewEvent.erasedSubject(at: event) {
                    metErasure = true
                    if source.opener.noteErased(erased) || checkpoint != nil {
                        erasureAfterWhatWasRead = true
                        return true
                    }
                }
                if let asOf, !asOf.includes(seq: seq, at: at) {
                    // A log with a key store is read to its end for the erasures after the as-of point.
                    guard watchesErasures else { return false }
                    pastAsOf = true
                    return true
                }
                loaded.views.apply(at: event, hash: hash, prefetching: ahead[0], rowsOf: ahead[1], hint: MemoryHint.prefetch)
                ahead.update(repeating: nil, count: 2)
                lastIncludedAt = at
                lastLine = (offset, offset + length)
                return true
            case .problem(let problem, _, _):
                if !pastAsOf && !erasureAfterWhatWasRead { damage = problem }
                return false
            case .tornTail(let problem, _, _):
                if !pastAsOf && !erasureAfterWhatWasRead { loaded.tornTail = problem }
                return false
            }
        }
        if erasureAfterWhatWasRead { throw ErasureAfterWhatWasRead(pastCheckpoint: checkpoint != nil) }
        if checker.idsMayRepeat() { throw RepeatedIDSeen() }
        // Save a new checkpoint when a whole-log read went far enough past the last one.
        if asOf == nil, damage == nil, interval > 0, loaded.views.selection == .all, let lastLine,
           loaded.views.events - (checkpoint?.views.events ?? 0) >= interval, let ids = checker.idFingerprints(),
           !source.cachesRememberAnotherHistory {
            source.save(Checkpoint(views: loaded.views, ids: ids, lineStart: lastLine.start, offset: lastLine.end))
        }
        // With checkpoints off nothing reads or replaces the views' checkpoint: one left from
        // before (or restored from a backup taken before) an erasure this read met may hold the
        // erased person's data, so it goes.
        if interval == 0, metErasure, damage == nil, !source.cachesRememberAnotherHistory { source.dropCheckpoint() }
        if lastIncludedAt == nil { lastIncludedAt = checkpoint?.headAt }
        if let damage { throw StoreError(.damaged, "the log is damaged at \(damage); run `ledger verify`", problem: damage) }
        if let asOf { loaded.asOfTime = asOf.instant(lastIncludedAt: lastIncludedAt) }
        return loaded
    }
}
