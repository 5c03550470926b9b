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
    /// each line verified first as `verify` checks it (the scanner's read in place, a repeated id
    /// refused at its line), then runs of verified lines re-read from the file in pieces of about
    /// `exportChunk` bytes, so the cost is a verify's plus one copy of the bytes, not a decode per line.
    public func exportLines(_ write: (UnsafeRawBufferPointer) -> Void) throws -> ExportOutcome {
        var outcome = ExportOutcome.missing
        try withReadLock { log in
            var checker = ChainChecker()
            checker.reserve(lines: (try log.size()) / 450)
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.exportChunk, alignment: 16)
            defer { buffer.deallocate() }
            var written = 0, verified = 0
            var failure: (any Error)?
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
            outcome = .exported(tornTail: nil)
            try LogScanner.scanFacts(log, checker: &checker) { item in
                switch item {
                case .event(_, _, let offset, let length):
                    verified = offset + length
                    return verified - written < Self.exportChunk || flush()
                case .problem(let problem, _, _):
                    outcome = .damaged(problem)
                    return false
                case .tornTail(let problem, _, _):
                    outcome = .exported(tornTail: problem)
                    return false
                }
            }
            if let failure { throw failure }
            guard flush() else { throw failure! }
        }
        return outcome
    }
}
