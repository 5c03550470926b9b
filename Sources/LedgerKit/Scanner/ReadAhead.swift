import Dispatch
import Glibc
import LedgerDomain

// MARK: - ReadAhead

/// The scanner's chunk reader, shared with the worker that reads the batch after the one it prepares.
/// Only one thread uses it at a time: the worker between its start and the scanner's wait.
final class ReadAhead: @unchecked Sendable {
    private var reader: ChunkReader
    private var read: Result<LineBatch, any Error>?

    init(_ reader: ChunkReader) { self.reader = reader }

    /// The next batch, read now.
    func next(firstLine: Int) throws -> LineBatch { try reader.next(firstLine: firstLine) }

    /// Reads the next batch and keeps it (or the error) for `takeAhead`.
    func readAhead(firstLine: Int) { read = Result { try reader.next(firstLine: firstLine) } }

    /// The batch `readAhead` read; rethrows its error.
    func takeAhead() throws -> LineBatch {
        defer { read = nil }
        guard let read else { throw SystemError("read", path: "log", code: EIO) }
        return try read.get()
    }
}
