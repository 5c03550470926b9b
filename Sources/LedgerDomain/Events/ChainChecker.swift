// MARK: - ChainChecker

/// Follows a log line by line and finds the first problem of each line: hash, `seq`, `prev`,
/// duplicate `id`, unknown `type` and `data` schema. Pure: the caller computes each body's SHA-256.
public struct ChainChecker: Sendable {
    /// Lines checked so far.
    public private(set) var lines = 0
    private var ids = UUIDSet()
    /// Every line's id fingerprint, when kept (`deferIDChecks`, `noteIDs`): for the end-of-read check
    /// and for a checkpoint to carry.
    private var fingerprints: RepeatedIDFinder?
    /// True when the ids of lines read in place go to `fingerprints` only, checked at the end.
    private var deferring = false
    /// The last line's declared seq and hash (declared values, so one bad line is reported once).
    private var headSeq = 0
    private var headHash = Digest32.zero
    /// The `batch` the next line must have: `unmarked` when it may stand alone or start a batch, or
    /// `unknownBatch` when the lines before it are not known (any mark is taken).
    private var expectedBatch = BatchMark.unmarked

    /// What opens a data version 2 line's personal members (the keyless `SealedOpener` unless a
    /// reader with keys sets its key ring); every line this checker checks is prepared with it.
    public var opener: any PersonalDataOpener = SealedOpener()

    /// A checker at the start of a log.
    public init() {}

    /// A checker at the start of a log whose personal members `opener` opens.
    public init(opener: any PersonalDataOpener) { self.opener = opener }

    /// A checker that continues after `head` (ids before it are not known, so duplicates against them
    /// go unseen; nor is the batch it may be in, so its first line may be any line of a batch).
    public init(continuingAfter head: Head) {
        headSeq = head.seq
        headHash = Digest32(hex: head.hash) ?? .zero
        lines = head.seq
        expectedBatch = Self.unknownBatch
    }

    /// True when the last line checked left a batch open: it is line `index` < `count` of one.
    public var batchIsOpen: Bool { expectedBatch != .unmarked && expectedBatch != Self.unknownBatch }

    /// The expectation of a checker that does not know the lines before its first: `[1,0]`, a mark
    /// no line can have.
    private static let unknownBatch = BatchMark.unmarked.next

    /// Makes room for the ids of about `lines` more lines at once (no rehash while the set grows),
    /// up to 4 Mi ids (a 128 MiB table): an estimate from a file's size must not allocate for lines
    /// it may not hold; past that the set grows as it fills.
    public mutating func reserve(lines: Int) { ids.reserveCapacity(ids.count + min(max(0, lines), 1 << 22)) }

    /// Leaves the repeated-id check of the lines `check(_:bodyHash:)` takes (those read in place) to
    /// one pass at the end, `idsMayRepeat`, sized for about `lines` of them: such a line is accepted
    /// whatever its id. For reads that can start over when the answer is "maybe" (replay: the views
    /// fold a million lines without a probe per line into a 32 MiB set). `hasSeen` then knows only
    /// the other lines' ids.
    /// With `prior` (a checkpoint's), the lines checked follow the ids it holds, and a repeat of one
    /// of them is a maybe too.
    /// With `seed` (and no `prior`), the fingerprints are taken under it (to compare with those kept under it).
    public mutating func deferIDChecks(lines: Int, after prior: IDFingerprints? = nil, seed: UUIDBits? = nil) {
        var finder = prior.map(RepeatedIDFinder.init(after:)) ?? seed.map(RepeatedIDFinder.init(seed:)) ?? RepeatedIDFinder()
        finder.reserve(lines: lines)
        fingerprints = finder
        deferring = true
    }

    /// Keeps every line's id fingerprint as well as checking it per line (a strict read that may save
    /// a checkpoint: `idFingerprints`).
    public mutating func noteIDs(lines: Int) {
        var finder = RepeatedIDFinder()
        finder.reserve(lines: lines)
        fingerprints = finder
    }

    /// After `deferIDChecks`: true when two lines checked so far may share an id (a repeat, or a
    /// fingerprint collision), so the read must start over without deferring to know; false when no
    /// two do. Always false without deferring (a repeat was then refused at its line).
    public mutating func idsMayRepeat() -> Bool { deferring && fingerprints?.checkRepeats() == true }

    /// After `deferIDChecks`: `idsMayRepeat` of the lines checked since the last call (or the
    /// first), against one another and every line before them, in one batch, so that a read can
    /// act on lines as it goes and still never past a repeat (export writes a piece of lines only
    /// after this said false; on a maybe it reads again without deferring). False without deferring.
    public mutating func newIDsMayRepeat() -> Bool {
        guard deferring else { return false }
        return fingerprints?.newMayRepeat() == true
    }

    /// True when `id` may be that of a line checked so far: exactly without deferring, by
    /// fingerprint (a maybe) after `deferIDChecks`.
    public func mayHaveSeen(id: UUIDBits) -> Bool {
        ids.contains(id) || (deferring && fingerprints?.mayHold(id) == true)
    }

    /// The fingerprints of every line's id so far (with a checkpoint's before them), for a new
    /// checkpoint; nil when they are not kept, or two may be equal.
    public func idFingerprints() -> IDFingerprints? { fingerprints?.all() }

    /// The head after the last line checked.
    public var head: Head { Head(seq: headSeq, hash: headHash.hex) }

    /// Checks the next line from its facts and its body's SHA-256, when it continues the chain:
    /// hash as declared, seq next, `prev` the last hash, id new. Returns false, changing nothing,
    /// when any check fails; the caller then checks the line with `check` for its problem.
    /// After `deferIDChecks`, the id is only noted for `idsMayRepeat`.
    public mutating func check(_ facts: ReplayLine, bodyHash: Digest32) -> Bool {
        withUnsafePointer(to: facts) { check(at: $0, bodyHash: bodyHash) }
    }

    /// `check(_:bodyHash:)` of the facts at `facts`, read where they lie: passing them by value
    /// copied their 200-odd bytes and retained and released their strings, per line.
    public mutating func check(at facts: UnsafePointer<ReplayLine>, bodyHash: Digest32) -> Bool {
        let (seq, id, prev, hash) = (facts.pointee.event.seq, facts.pointee.id, facts.pointee.prev, facts.pointee.hash)
        guard bodyHash == hash, headSeq < Int.max, seq == headSeq + 1, prev == headHash else { return false }
        // Lines outside batches expecting none (nearly all): one test.
        let batch = facts.pointee.batch
        if batch.raw | expectedBatch.raw != 0 {
            guard Self.follows(batch, expected: expectedBatch) else { return false }
        }
        if !deferring, !ids.insert(id) { return false }
        expectedBatch = Self.expectation(after: batch)
        fingerprints?.add(id)
        lines += 1
        headSeq = seq
        headHash = hash
        return true
    }

    /// True when a line marked `batch` may follow lines that left `expected`.
    private static func follows(_ batch: BatchMark, expected: BatchMark) -> Bool {
        if expected == unknownBatch { return true }
        if expected.isUnmarked { return batch.isUnmarked || batch.index == 1 }
        return batch == expected
    }

    /// What the line after a line marked `batch` must have.
    @inline(__always)
    private static func expectation(after batch: BatchMark) -> BatchMark { batch.leavesBatchOpen ? batch.next : .unmarked }

    /// Why a line marked `batch` may not follow lines that left `expected` (`follows` is false).
    private static func batchProblem(_ batch: BatchMark, expected: BatchMark) -> String {
        if expected.isUnmarked {
            return "batch \(batch) is line \(batch.index) of a batch of \(batch.count), but no line before it started that batch"
        }
        let open = "the batch before it has \(expected.count) lines and line \(expected.index) comes next"
        if batch.isUnmarked { return "\(open), but this line is not in a batch: the batch is interrupted" }
        return "batch \(batch): \(open), as [\(expected.index),\(expected.count)]; the batch is interrupted"
    }

    /// What a line's envelope gives on its own, without any other line: the typed event, or the
    /// first problem of its type, version, stream and data. Pure, so lines can be prepared in parallel.
    public enum Prepared: Sendable {
        /// The typed event.
        case event(LedgerEvent)
        /// The first problem found (the line number is filled in by `check`).
        case problem(ProblemKind, String)
    }

    /// The checks of a line that need no other line; a data version 2 line's personal members are
    /// opened by `opener` (the keyless `SealedOpener` reads them as erased, their form still checked),
    /// and each subject whose key is missing is passed to `missing`.
    public static func prepare(_ envelope: Envelope, opener: any PersonalDataOpener = SealedOpener(),
                               missing: ((SubjectID) -> Void)? = nil) -> Prepared {
        guard let type = EventType(rawValue: envelope.type) else {
            return .problem(.unknownType, "type \"\(envelope.type)\" is not in the catalogue")
        }
        guard let upcaster = DataVersions.upcaster(type, version: envelope.v) else {
            return .problem(.invalidData, "\(type.rawValue) v\(envelope.v) is unknown; this build reads \(DataVersions.known(type))")
        }
        guard let category = StreamName.parse(envelope.stream)?.category, type.belongs(in: category) else {
            return .problem(.invalidData, "\(type.rawValue) belongs in a \(type.category.rawValue)- stream, not \(envelope.stream)")
        }
        do {
            let data = try DataVersions.upcast(envelope.data, type: type, upcaster: upcaster, eventID: envelope.id,
                                               opener: opener, missing: missing)
            return .event(try LedgerEvent.decode(type: type, data: data))
        } catch {
            return .problem(.invalidData, "\(type.rawValue): \(error)")
        }
    }

    /// Checks the next line, given its envelope and the SHA-256 hex of its body; returns the typed event.
    /// State advances even when a problem is thrown, so checking can go on with the following lines.
    public mutating func check(_ envelope: Envelope, bodyHash: String) throws(LogProblem) -> RecordedEvent {
        try check(envelope, bodyHash: bodyHash, prepared: Self.prepare(envelope, opener: opener))
    }

    /// Like `check(_:bodyHash:)`, with the line's `prepare` result computed beforehand.
    public mutating func check(_ envelope: Envelope, bodyHash: String, prepared: Prepared) throws(LogProblem) -> RecordedEvent {
        lines += 1
        let line = lines
        let expected = head
        let batch = envelope.batchMark, wanted = expectedBatch
        expectedBatch = Self.expectation(after: batch)
        headSeq = envelope.seq
        headHash = Digest32(hex: envelope.hash) ?? .zero
        let id = Identifiers.uuidBits(envelope.id)!
        let isNewID = ids.insert(id)
        fingerprints?.add(id)
        guard bodyHash == envelope.hash else {
            throw LogProblem(line: line, kind: .badHash, message: "hash \(envelope.hash.prefix(12))… does not match the line's bytes (sha256 \(bodyHash.prefix(12))…)")
        }
        // The head holds declared values, so a damaged line may have left it at Int.max: no `+ 1` trap.
        let (next, overflow) = expected.seq.addingReportingOverflow(1)
        guard !overflow, envelope.seq == next else {
            throw LogProblem(line: line, kind: .seqGap, message: "seq \(envelope.seq) follows seq \(expected.seq); expected \(overflow ? "no line after it" : String(next))")
        }
        guard envelope.prev == expected.hash else {
            throw LogProblem(line: line, kind: .brokenChain, message: "prev \(envelope.prev.prefix(12))… is not the previous line's hash \(expected.hash.prefix(12))…")
        }
        guard isNewID else { throw LogProblem(line: line, kind: .invalidData, message: "id \(envelope.id) was already used") }
        guard Self.follows(batch, expected: wanted) else {
            throw LogProblem(line: line, kind: .brokenBatch, message: Self.batchProblem(batch, expected: wanted))
        }
        switch prepared {
        case .event(let event): return RecordedEvent(envelope: envelope, event: event)
        case .problem(let kind, let message): throw LogProblem(line: line, kind: kind, message: message)
        }
    }

    /// True when `id` was used by a line checked so far.
    public func hasSeen(id: String) -> Bool { Identifiers.uuidBits(id).map(ids.contains) ?? false }

    /// Records a line that could not be decoded at all, so numbering stays right (the batch it may
    /// belong to is not known: the next line may be any line of one).
    public mutating func skipUndecodable() {
        lines += 1
        expectedBatch = Self.unknownBatch
    }
}
