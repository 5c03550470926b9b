import Dispatch
import Glibc
import LedgerDomain

// MARK: - LogScanner

/// Streams a log file in large chunks, decoding and verifying every line (JSON, hash, chain, schema).
/// Memory holds three chunks (the one checked, the one being prepared, the one read ahead; a chunk
/// grows to hold a line longer than it) plus the checker's id set.
public enum LogScanner {
    /// Bytes read per call.
    public static let chunkSize = 1 << 19

    /// Scans `file` from byte `offset`, continuing `checker`, calling `body` per line until it returns false.
    public static func scan(_ file: any LogBytes, from offset: Int = 0, checker: inout ChainChecker,
                            _ body: (ScanItem) -> Bool) throws {
        try scanLines(file, from: offset, checker: &checker) { item, _ in body(item) }
    }

    /// Like `scan`, also passing each line's raw bytes (without the newline).
    public static func scanLines(_ file: any LogBytes, from offset: Int = 0, checker: inout ChainChecker,
                                 _ body: (ScanItem, UnsafeBufferPointer<UInt8>) -> Bool) throws {
        try pipeline(file, from: offset, firstLine: checker.lines + 1, fast: false, opener: checker.opener) { batch, all in
            let closed = batch.ranges.count - batch.openBatchLines
            for i in 0..<batch.ranges.count {
                if i == closed, let torn = cutBatch(batch, all, checker: checker, wholeBatches: file.storesWholeBatches) {
                    return body(torn, UnsafeBufferPointer(rebasing: all[batch.ranges[i].lowerBound...]))
                }
                let range = batch.ranges[i]
                let bytes = UnsafeBufferPointer(rebasing: all[range])
                if !body(finish(batch.take(i), bytes, offset: batch.base + range.lowerBound, checker: &checker), bytes) { return false }
            }
            if let rest = batch.unterminated {
                let line = UnsafeBufferPointer(rebasing: all[rest])
                return body(decode(line, offset: batch.base + rest.lowerBound, terminated: false, checker: &checker), line)
            }
            return true
        }
    }

    /// Like `scan`, for folding views: lines spelled as ledger writes them are read straight into
    /// `ViewEvent`s (`LineCodec.readInPlace`) and checked as bits; any other line, or any line with a
    /// problem, goes through the full decoder and checker, so items and problems are those of `scan`.
    /// `lookahead`, when given, is shown the event of the line `lookaheadLines` ahead of each one
    /// before that one reaches `body` (read in place, in the same batch): a fold asks for the memory
    /// it will touch then (`LedgerViews.prefetch`); `nearLookahead` is shown the line
    /// `nearLookaheadLines` ahead, whose index slots were asked for already, so the fold asks for the
    /// rows they lead to (`LedgerViews.prefetch` at `.rows`).
    public static func scanFacts(_ file: any LogBytes, from offset: Int = 0, checker: inout ChainChecker,
                                 lookahead: (UnsafePointer<ViewEvent>) -> Void = { _ in },
                                 nearLookahead: (UnsafePointer<ViewEvent>) -> Void = { _ in },
                                 _ body: (ReplayItem) -> Bool) throws {
        try scanFactsLendingChecker(file, from: offset, checker: &checker, lookahead: lookahead, nearLookahead: nearLookahead,
                                    { item, _, _ in body(item) }, endOfChunk: { _, _ in true })
    }

    /// How far ahead `lookahead` looks: enough lines for memory to answer (a line's fold takes
    /// about half a microsecond), few enough that what it asked for is still in the cache.
    static let lookaheadLines = 8
    /// How far ahead `nearLookahead` looks: half as far, once the slots asked for have come.
    static let nearLookaheadLines = 4

    /// Like `scanFacts`, also lending `body` the checker after each line, to ask it what it has
    /// deferred, and the chunk of the file the line lies in (valid only during the call), and
    /// calling `endOfChunk` after a chunk's last complete line. Export checks a chunk's ids at its
    /// end, then writes its lines from the chunk itself.
    public static func scanFactsLendingChecker(_ file: any LogBytes, from offset: Int = 0, checker: inout ChainChecker,
                                               lookahead: (UnsafePointer<ViewEvent>) -> Void = { _ in },
                                               nearLookahead: (UnsafePointer<ViewEvent>) -> Void = { _ in },
                                               _ body: (ReplayItem, inout ChainChecker, ScanChunk) -> Bool,
                                               endOfChunk: (inout ChainChecker, ScanChunk) -> Bool) throws {
        try pipeline(file, from: offset, firstLine: checker.lines + 1, fast: true, opener: checker.opener) { batch, all in
            let chunk = ScanChunk(bytes: all, base: batch.base)
            let closed = batch.ranges.count - batch.openBatchLines
            for i in 0..<batch.ranges.count {
                if i == closed, let torn = cutBatch(batch, all, checker: checker, wholeBatches: file.storesWholeBatches) {
                    return ReplayItem.with(torn, { body($0, &checker, chunk) })
                }
                if i + lookaheadLines < closed, let ahead = batch.facts(i + lookaheadLines) {
                    lookahead(ReplayLine.event(at: ahead))
                }
                if i + nearLookaheadLines < closed, let near = batch.facts(i + nearLookaheadLines) {
                    nearLookahead(ReplayLine.event(at: near))
                }
                let range = batch.ranges[i]
                let bytes = UnsafeBufferPointer(rebasing: all[range])
                let offset = batch.base + range.lowerBound
                if let facts = batch.facts(i), checker.check(at: facts, bodyHash: facts.pointee.hash) {
                    if !body(.event(ReplayLine.event(at: facts), hash: facts.pointee.hash, offset: offset, length: bytes.count + 1), &checker, chunk) { return false }
                    continue
                }
                if !ReplayItem.with(finish(batch.take(i), bytes, offset: offset, checker: &checker), { body($0, &checker, chunk) }) { return false }
            }
            if let rest = batch.unterminated {
                let line = UnsafeBufferPointer(rebasing: all[rest])
                return ReplayItem.with(decode(line, offset: batch.base + rest.lowerBound, terminated: false, checker: &checker), { body($0, &checker, chunk) })
            }
            return endOfChunk(&checker, chunk)
        }
    }

    /// Reads `file` from `offset` in batches and hands each to `visit` once prepared, until it returns false.
    ///
    /// Batches are pipelined: while `visit` checks one batch on this thread, a worker prepares the
    /// next one (decodes and hashes its lines, which need no other line), having first read the one
    /// after it. When `visit` is done first, this thread helps prepare what the worker has not claimed.
    private static func pipeline(_ file: any LogBytes, from offset: Int, firstLine: Int, fast: Bool, opener: any PersonalDataOpener,
                                 _ visit: (LineBatch, UnsafeBufferPointer<UInt8>) -> Bool) throws {
        let reader = ReadAhead(ChunkReader(file, from: offset, memory: BatchMemory()))
        var current = try reader.next(firstLine: firstLine)
        current.prepareClaimed(fast: fast, opener: opener)
        var ahead = current.eof ? nil : try reader.next(firstLine: current.nextLine)
        let worker = DispatchGroup()
        defer { worker.wait() }  // never leave a worker behind on an early stop or an error
        while true {
            if let upcoming = ahead {
                DispatchQueue.global().async(group: worker) {
                    if !upcoming.eof { reader.readAhead(firstLine: upcoming.nextLine) }
                    upcoming.prepareClaimed(fast: fast, opener: opener)
                }
            }
            let keepGoing = visit(current, current.bytes)
            if keepGoing { ahead?.prepareClaimed(fast: fast, opener: opener) }
            worker.wait()
            guard keepGoing, let upcoming = ahead else { return }
            current = upcoming
            ahead = upcoming.eof ? nil : try reader.takeAhead()
        }
    }

    // MARK: - Lines

    /// A line decoded and hashed on its own, before the chain check.
    enum PreparedLine: Sendable {
        /// Read in place, its body hashing to its declared hash (the fast lane of `scanFacts`).
        case facts(ReplayLine)
        /// The envelope, the SHA-256 hex of its body and the line's own checks.
        case decoded(Envelope, hash: String, ChainChecker.Prepared)
        /// Not a v1 line at all.
        case undecodable(LogProblem)
    }

    /// Decodes and hashes one line (without its newline); `number` is its 1-based line number.
    /// With `sha` (the fast lane), a line spelled as ledger writes it is read into facts.
    static func prepare(_ line: UnsafeBufferPointer<UInt8>, number: Int, sha: SHA256Context? = nil,
                        opener: any PersonalDataOpener) -> PreparedLine {
        if let sha, let facts = LineCodec.readInPlace(line, opener: opener),
           sha.digest(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: line[0..<facts.bodyLength]))) == facts.hash {
            return .facts(facts)
        }
        return prepareWhole(line, number: number, opener: opener)
    }

    /// Like `prepare`: initializes `facts` and returns the line's id when it was read in place,
    /// else initializes `other` and returns nil.
    static func prepare(_ line: UnsafeBufferPointer<UInt8>, number: Int, sha: SHA256Context?, opener: any PersonalDataOpener,
                        facts: UnsafeMutablePointer<ReplayLine>, other: UnsafeMutablePointer<PreparedLine>) -> UUIDBits? {
        // Read straight into the batch's memory: a line's reading is 224 bytes, each copy on the way cost.
        if let sha, LineCodec.readInPlace(line, into: facts, opener: opener) {
            if sha.digest(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: line[0..<facts.pointee.bodyLength]))) == facts.pointee.hash {
                return facts.pointee.id
            }
            facts.deinitialize(count: 1)
        }
        other.initialize(to: prepareWhole(line, number: number, opener: opener))
        return nil
    }

    /// Decodes and hashes one line with the full decoder.
    private static func prepareWhole(_ line: UnsafeBufferPointer<UInt8>, number: Int, opener: any PersonalDataOpener) -> PreparedLine {
        do throws(LogProblem) {
            let (envelope, bodyLength) = try LineCodec.decode(line, lineNumber: number)
            let hash = SHA256.hex(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: line[0..<bodyLength])))
            return .decoded(envelope, hash: hash, ChainChecker.prepare(envelope, opener: opener))
        } catch {
            return .undecodable(error)
        }
    }

    /// Checks a prepared complete line against the chain. A complete line is never a torn tail,
    /// whatever its bytes: an append is one write, so only bytes after the last newline can be torn.
    static func finish(_ prepared: PreparedLine, _ line: UnsafeBufferPointer<UInt8>, offset: Int,
                       checker: inout ChainChecker) -> ScanItem {
        let length = line.count + 1
        switch prepared {
        case .facts:
            // Read in place but failed the chain check: the full decoder and checker name the problem.
            return finish(prepare(line, number: checker.lines + 1, opener: checker.opener), line, offset: offset, checker: &checker)
        case .decoded(let envelope, let hash, let checks):
            do throws(LogProblem) {
                return .event(try checker.check(envelope, bodyHash: hash, prepared: checks), offset: offset, length: length)
            } catch {
                return .problem(error, offset: offset, length: length)
            }
        case .undecodable(let error):
            checker.skipUndecodable()
            return .problem(error, offset: offset, length: length)
        }
    }

    /// At the end of the log: the torn tail that the batch its last `openBatchLines` complete lines
    /// leave open starts (those lines and any bytes after them), when they verify as lines that
    /// continue `checker`. An append is one write of a whole batch, acknowledged once synced, so a
    /// batch the end of the log cuts short was never acknowledged: it is not part of the log, as
    /// torn bytes are not. When its last line lacks only its newline and closes the batch, it is
    /// whole: the next writer adds the newline, as for one line. Nil when there is no such batch
    /// or its lines do not verify: they are then read as any lines, and their damage is named.
    static func cutBatch(_ batch: LineBatch, _ all: UnsafeBufferPointer<UInt8>, checker: ChainChecker, wholeBatches: Bool = false) -> ScanItem? {
        guard batch.eof, batch.openBatchLines > 0 else { return nil }
        let first = batch.ranges.count - batch.openBatchLines
        let start = batch.ranges[first].lowerBound
        var probe = checker
        for range in batch.ranges[first...] {
            let line = UnsafeBufferPointer(rebasing: all[range])
            guard case .event = finish(prepare(line, number: probe.lines + 1, opener: probe.opener), line, offset: batch.base + range.lowerBound, checker: &probe)
            else { return nil }
        }
        let cut = batch.openBatchLines
        var whole = false
        var described = "\(cut) complete line\(cut == 1 ? "" : "s")"
        if let rest = batch.unterminated {
            let line = UnsafeBufferPointer(rebasing: all[rest])
            if case .event = finish(prepare(line, number: probe.lines + 1, opener: probe.opener), line, offset: batch.base + rest.lowerBound, checker: &probe) {
                whole = !probe.batchIsOpen
            }
            described += " and \(rest.count) bytes after them"
        }
        let number = checker.lines + 1
        if wholeBatches && !whole {
            return .tornTail(storeEndsInsideBatch(firstLine: number, described: described), offset: batch.base + start, length: all.count - start)
        }
        let message = whole
            ? "lines \(number)-\(number + cut) are a whole batch whose last line lacks its final newline: the next writer adds it"
            : "the log ends inside a batch (\(described) from line \(number)): a batch cut by a crash, never acknowledged; the next writer moves it to events.jsonl.broken"
        return .tornTail(LogProblem(line: number, kind: .tornTail, message: message), offset: batch.base + start, length: all.count - start)
    }

    /// The problem of a store that commits each batch whole (PostgreSQL) and ends inside one: its
    /// rows from `firstLine` (`described`, e.g. "2 complete lines") lost the rows after them. Named
    /// the same by `verify`, the reads, writers and `recover`, all on the batch's first line.
    static func storeEndsInsideBatch(firstLine: Int, described: String) -> LogProblem {
        LogProblem(line: firstLine, kind: .tornTail,
                   message: "the store ends inside a batch (\(described) from line \(firstLine)): rows of a batch committed whole are missing after them "
                       + "(deleted, or a restore cut it); writers refuse until they are back")
    }

    /// Decodes and verifies one line (without its newline).
    static func decode(_ line: UnsafeBufferPointer<UInt8>, offset: Int, terminated: Bool,
                       checker: inout ChainChecker) -> ScanItem {
        let number = checker.lines + 1
        guard terminated else {
            // A whole event without its newline is kept by the next writer, which adds the newline.
            // … unless it leaves a batch open: then it is a batch cut short (its first line).
            var probe = checker
            let event = if case .event = finish(prepare(line, number: number, opener: checker.opener), line, offset: offset, checker: &probe) { true } else { false }
            let whole = event && !probe.batchIsOpen
            let message = whole ? "the last line is a whole event without its final newline: the next writer adds it"
                                : "the last line has no final newline: an incomplete write (\(line.count) bytes)"
            return .tornTail(LogProblem(line: number, kind: .tornTail, message: message), offset: offset, length: line.count)
        }
        return finish(prepare(line, number: number, opener: checker.opener), line, offset: offset, checker: &checker)
    }
}
