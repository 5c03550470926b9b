import LedgerDomain

// MARK: - LogExport

/// The lines of a log, each checked as `verify` checks it, handed out exactly as stored: what
/// `ledger export` writes for either store. The scanner reads them in place (SHA-256 and the chain
/// on both cores), and the checked lines of each chunk it read (about `LogScanner.chunkSize` bytes)
/// go out at the chunk's end, once the chunk's ids are known to be new, so the cost is a verify's
/// plus the writes, not a decode per line.
///
/// As in `verify`, ids are checked by fingerprint, but per chunk, before it is written: on a maybe
/// (a repeated id, or two fingerprints that collide) the log is read again from its first line
/// with the per-line check, which names the line, and writes on from where the first read
/// stopped, so no line after a repeat is ever written.
public enum LogExport {
    /// What an export found.
    public enum Outcome: Equatable, Sendable {
        /// There is no log.
        case missing
        /// Every complete line was written; `tornTail` is an incomplete last line left out.
        case exported(tornTail: LogProblem?)
        /// A damaged line: the lines before it were written, none from it on.
        case damaged(LogProblem)
    }

    /// Writes the lines of the log `open` gives (opened again from its first line for a second
    /// read after a maybe), about `lines` of them, to `write`. A source that throws a store's damage
    /// at a line (PostgreSQL's rows out of `seq` order, or not one line each) may have thrown away
    /// lines before it the scanner read ahead: with `openBefore`, the lines before that one are read
    /// again, the ones not yet written written, and the damage returned as a damaged line's is.
    static func lines(open: () throws -> any LogBytes, openBefore: ((_ line: Int) throws -> any LogBytes)? = nil,
                      lines: Int, _ write: (UnsafeRawBufferPointer) -> Void) throws -> Outcome {
        var written = 0
        do {
            if let found = try pass(try open(), lines: lines, deferringIDs: true, written: &written, write) { return found }
            return try pass(try open(), lines: lines, deferringIDs: false, written: &written, write) ?? .exported(tornTail: nil)
        } catch let error as StoreError where error.code == .damaged && error.problem != nil && openBefore != nil {
            let problem = error.problem!
            let before = try pass(try openBefore!(problem.line), lines: lines, deferringIDs: false, written: &written, write)
            if case .damaged? = before { return before! }  // an earlier line is damaged too: that one is named
            return .damaged(problem)
        }
    }

    /// One read from the log's first line, writing the lines that end past `written` (moved on as
    /// they are written). With `deferringIDs`, nil at a maybe, before any line of the chunk holding
    /// it is written; else ids are checked per line.
    private static func pass(_ log: any LogBytes, lines: Int, deferringIDs: Bool, written: inout Int,
                             _ write: (UnsafeRawBufferPointer) -> Void) throws -> Outcome? {
        var checker = ChainChecker()
        if deferringIDs { checker.deferIDChecks(lines: lines) } else { checker.reserve(lines: lines) }
        var verified = 0
        var outcome: Outcome? = .exported(tornTail: nil)
        // Writes the lines verified and not yet written, all in `chunk` (each chunk's are written at
        // its end), once the ids checked so far are known distinct; false (outcome nil) on a maybe.
        func release(_ checker: inout ChainChecker, _ chunk: ScanChunk) -> Bool {
            guard !checker.newIDsMayRepeat() else {
                outcome = nil
                return false
            }
            let from = max(written, chunk.base)
            if from < verified { write(UnsafeRawBufferPointer(chunk.bytes(from..<verified))) }
            written = max(written, verified)
            return true
        }
        try LogScanner.scanFactsLendingChecker(log, checker: &checker, { item, checker, chunk in
            switch item {
            case .event(_, _, let offset, let length):
                verified = offset + length
                return true
            case .problem(let problem, _, _):
                // The damaged line's id is checked too: a repeat is the problem named when its
                // other checks pass.
                if release(&checker, chunk) { outcome = .damaged(problem) }
                return false
            case .tornTail(let problem, let offset, let length):
                if deferringIDs, tornLineMayRepeat(chunk.bytes(offset..<(offset + length)), checker) {
                    outcome = nil  // whether it is a whole event depends on its id being new
                } else if release(&checker, chunk) {
                    outcome = .exported(tornTail: problem)
                }
                return false
            }
        }, endOfChunk: { checker, chunk in release(&checker, chunk) })
        return outcome
    }

    /// True when the incomplete last line `line` may repeat the id of a line before it (its id's
    /// fingerprint is among theirs): a torn tail that is a whole event is described as one only
    /// when its id is new.
    private static func tornLineMayRepeat(_ line: UnsafeBufferPointer<UInt8>, _ checker: ChainChecker) -> Bool {
        guard let decoded = try? LineCodec.decode(line, lineNumber: checker.lines + 1),
              let id = Identifiers.uuidBits(decoded.0.id) else { return false }
        return checker.mayHaveSeen(id: id)
    }
}
