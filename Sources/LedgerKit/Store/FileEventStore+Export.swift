import Glibc
import LedgerDomain

// MARK: - FileEventStore: export

extension FileEventStore {
    /// What `exportLines` found.
    public enum ExportOutcome: Equatable, Sendable {
        /// There is no log.
        case missing
        /// Every complete line was written; `tornTail` is an incomplete last line left out.
        case exported(tornTail: LogProblem?)
        /// A damaged line: the lines before it were written, none from it on.
        case damaged(LogProblem)
    }

    /// Bytes of verified lines handed to `write` at once.
    static let exportChunk = 1 << 20

    /// Hands `write` the log's lines exactly as stored, newlines included, under the shared lock:
    /// each line verified first as `verify` checks it (the scanner's read in place), then runs of
    /// verified lines re-read from the file in pieces of about `exportChunk` bytes, so the cost is a
    /// verify's plus one copy of the bytes, not a decode per line.
    ///
    /// As in `verify`, ids are checked by fingerprint, but per piece, before it is written: on a
    /// maybe (a repeated id, or two fingerprints that collide) the log is read again from its first
    /// line with the per-line check, which names the line, and writes on from where the first
    /// read stopped, so no line after a repeat is ever written.
    public func exportLines(_ write: (UnsafeRawBufferPointer) -> Void) throws -> ExportOutcome {
        var outcome = ExportOutcome.missing
        try withReadLock { log in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.exportChunk, alignment: 16)
            defer { buffer.deallocate() }
            var written = 0
            if let found = try exportPass(log, deferringIDs: true, buffer: buffer, written: &written, write) {
                outcome = found
            } else if let found = try exportPass(log, deferringIDs: false, buffer: buffer, written: &written, write) {
                outcome = found
            }
        }
        return outcome
    }

    /// One read of `exportLines` from the log's first line, writing the lines that end past
    /// `written` (moved on as they are written). With `deferringIDs`, nil at a maybe, before any
    /// line of the piece holding it is written; else ids are checked per line.
    private func exportPass(_ log: FileDescriptor, deferringIDs: Bool, buffer: UnsafeMutableRawBufferPointer,
                            written: inout Int, _ write: (UnsafeRawBufferPointer) -> Void) throws -> ExportOutcome? {
        var checker = ChainChecker()
        let lines = (try log.size()) / 450
        if deferringIDs { checker.deferIDChecks(lines: lines) } else { checker.reserve(lines: lines) }
        var verified = 0
        var failure: (any Error)?
        var outcome: ExportOutcome? = .exported(tornTail: nil)
        // Copies [written, verified) out; false (the error kept) when the file could not be read.
        func flush() -> Bool {
            while written < verified {
                do {
                    let n = try log.read(into: buffer.baseAddress!, count: min(buffer.count, verified - written), at: written)
                    guard n > 0 else { throw SystemError("read", path: logPath, code: EIO) }
                    write(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                    written += n
                } catch {
                    failure = error
                    return false
                }
            }
            return true
        }
        // `flush` once the ids checked so far are known distinct; false (outcome nil) on a maybe.
        func release(_ checker: inout ChainChecker) -> Bool {
            guard !checker.newIDsMayRepeat() else {
                outcome = nil
                return false
            }
            return flush()
        }
        try LogScanner.scanFactsLendingChecker(log, checker: &checker) { item, checker in
            switch item {
            case .event(_, _, let offset, let length):
                verified = offset + length
                return verified - written < Self.exportChunk || release(&checker)
            case .problem(let problem, _, _):
                // The damaged line's id is checked too: a repeat is the problem named when its
                // other checks pass.
                if release(&checker) { outcome = .damaged(problem) }
                return false
            case .tornTail(let problem, let offset, let length):
                if deferringIDs, tornLineMayRepeat(log, at: offset, length: length, buffer: buffer, checker) {
                    outcome = nil  // whether it is a whole event depends on its id being new
                } else if release(&checker) {
                    outcome = .exported(tornTail: problem)
                }
                return false
            }
        }
        if failure == nil, outcome != nil { _ = release(&checker) }
        if let failure { throw failure }
        return outcome
    }

    /// True when the incomplete last line at `offset` may repeat the id of a line before it (it
    /// cannot be read back, or its id's fingerprint is among theirs): a torn tail that is a whole
    /// event is described as one only when its id is new.
    private func tornLineMayRepeat(_ log: FileDescriptor, at offset: Int, length: Int,
                                   buffer: UnsafeMutableRawBufferPointer, _ checker: ChainChecker) -> Bool {
        guard length <= buffer.count, (try? log.read(into: buffer.baseAddress!, count: length, at: offset)) == length else { return true }
        let line = UnsafeBufferPointer(start: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: length)
        guard let decoded = try? LineCodec.decode(line, lineNumber: checker.lines + 1),
              let id = Identifiers.uuidBits(decoded.0.id) else { return false }
        return checker.mayHaveSeen(id: id)
    }
}
